// Main of the CPU test executables: the tests, then exit 77 (ctest: Skipped) when a test could not check what it is
// for here (support/skip.hpp) and none failed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/skip.hpp"

int main(int argc, char* argv[]) { return vlb::testing::finish_run(Catch::Session().run(argc, argv)); }
