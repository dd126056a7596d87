// Main of the GPU test executables: without a usable CUDA GPU, say so and exit 77 (ctest: Skipped).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "harness/core/device_info.hpp"

int main(int argc, char* argv[]) {
  if (vlb::device_count() == 0) {
    std::printf("SKIPPED: no CUDA GPU on this machine (cudaGetDeviceCount found none); GPU tests need one\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
