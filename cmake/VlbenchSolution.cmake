set(VLBENCH_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")  # for the files below, also when another project includes this

# vlbench_add_solution(NAME <name> SOURCES <files...> [LIBRARIES <targets...>])
# Builds one solution folder twice over: a static library (vlbench_solution_<name>, for test programs that call the
# solution in their own process) and the solution module that vlbench runs it from
# (solution_modules/vlbench_solution_<name>.so, loaded only by the sandboxed worker and describer: harness/solution/
# solution_module.hpp). NAME must be the folder's name (checked here, at configure time) and the name the solution's
# describe() gives (checked when it registers).
function(vlbench_add_solution)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "vlbench_add_solution needs NAME and SOURCES")
  endif()
  get_filename_component(folder_name "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT ARG_NAME STREQUAL folder_name)
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: vlbench_add_solution(NAME ${ARG_NAME}) is in the folder "
                        "'${folder_name}': a solution is named after its folder (NAME ${folder_name}), and its "
                        "describe() gives the same name (docs/adding-a-solution.md)")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: the solution name '${ARG_NAME}' must be a C identifier "
                        "(letters, digits, underscores): `vlbench package` passes it to the compiler")
  endif()
  set(target vlbench_solution_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_link_libraries(${target} PUBLIC vlbench_harness ${ARG_LIBRARIES})
  target_compile_definitions(${target} PRIVATE VLBENCH_SOLUTION_FOLDER_NAME="${ARG_NAME}")
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  vlbench_set_gpu_targets(${target})
  set_property(GLOBAL APPEND PROPERTY VLBENCH_SOLUTION_TARGETS ${target})
  vlbench_add_solution_module(NAME ${ARG_NAME} FOLDER "${PROJECT_BINARY_DIR}/solution_modules" LIBRARIES ${target})
endfunction()

# vlbench_add_solution_module(NAME <name> FOLDER <folder> LIBRARIES <static libraries...>): the module
# vlbench_solution_<name>.so in <folder>, made of the libraries' whole archives (their registrations) and the module's
# exports. Only the exports are visible (solution_module.map), so each module keeps its own copy of the harness code
# it links. Tests make their own modules (adversaries, broken registrations) in folders of their own, which vlbench
# reads only when told to ($VLBENCH_SOLUTION_MODULES).
function(vlbench_add_solution_module)
  cmake_parse_arguments(ARG "" "NAME;FOLDER" "LIBRARIES" ${ARGN})
  set(name ${ARG_NAME})
  set(folder "${ARG_FOLDER}")
  set(module vlbench_solution_module_${name})
  add_library(${module} MODULE "${VLBENCH_CMAKE_DIR}/../harness/solution/module_entry.cpp")
  foreach(library IN LISTS ARG_LIBRARIES)
    target_link_libraries(${module} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${library}>")
  endforeach()
  target_link_libraries(${module} PRIVATE vlbench_harness)
  target_link_options(${module} PRIVATE
    "LINKER:--version-script=${VLBENCH_CMAKE_DIR}/solution_module.map" "LINKER:--no-undefined")
  set_target_properties(${module} PROPERTIES PREFIX "" OUTPUT_NAME "vlbench_solution_${name}"
                        LIBRARY_OUTPUT_DIRECTORY "${folder}")
  if(folder STREQUAL "${PROJECT_BINARY_DIR}/solution_modules")
    set_property(GLOBAL APPEND PROPERTY VLBENCH_SOLUTION_MODULES ${module})
  endif()
endfunction()

# Links every registered solution's static library into an executable (test programs that run solutions in their
# own process).
function(vlbench_link_solutions executable)
  get_property(solution_targets GLOBAL PROPERTY VLBENCH_SOLUTION_TARGETS)
  foreach(solution IN LISTS solution_targets)
    target_link_libraries(${executable} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${solution}>")
  endforeach()
endfunction()

# Makes `target` depend on every solution module, so that building it builds what it runs.
function(vlbench_depend_on_solution_modules target)
  get_property(modules GLOBAL PROPERTY VLBENCH_SOLUTION_MODULES)
  if(modules)
    add_dependencies(${target} ${modules})
  endif()
endfunction()
