# vlbench_add_solution(NAME <name> SOURCES <files...> [LIBRARIES <targets...>])
# Builds one solution folder as a static library that executables link as a whole archive, so the
# solution's VLBENCH_REGISTER_SOLUTION line is never dropped by the linker. NAME must be the folder's name (checked
# here, at configure time) and the name the solution's describe() gives (checked when it registers).
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
  vlbench_set_gpu_targets(${target})
  set_property(GLOBAL APPEND PROPERTY VLBENCH_SOLUTION_TARGETS ${target})
endfunction()

# Links every registered solution (and the reference) into an executable.
function(vlbench_link_solutions executable)
  get_property(solution_targets GLOBAL PROPERTY VLBENCH_SOLUTION_TARGETS)
  foreach(solution IN LISTS solution_targets)
    target_link_libraries(${executable} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${solution}>")
  endforeach()
endfunction()
