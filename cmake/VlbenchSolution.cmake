# vlbench_add_solution(NAME <name> SOURCES <files...> [LIBRARIES <targets...>])
# Builds one solution folder as a static library that executables link as a whole archive, so the
# solution's VLBENCH_REGISTER_SOLUTION line is never dropped by the linker.
function(vlbench_add_solution)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "vlbench_add_solution needs NAME and SOURCES")
  endif()
  set(target vlbench_solution_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_link_libraries(${target} PUBLIC vlbench_harness ${ARG_LIBRARIES})
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
