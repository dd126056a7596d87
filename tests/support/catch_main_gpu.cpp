// Main of the GPU test executables: without a usable CUDA GPU, say so and exit 77 (ctest: Skipped); with one, run
// the tests and exit 77 as well when a test could not check what it is for (support/skip.hpp) and none failed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "harness/core/device_info.hpp"
#include "support/skip.hpp"

int main(int argc, char* argv[]) {
  if (vlb::device_count() == 0) {
    std::printf("SKIPPED: no CUDA GPU on this machine (cudaGetDeviceCount found none); GPU tests need one\n");
    return 77;
  }
  return vlb::testing::finish_run(Catch::Session().run(argc, argv));
}
