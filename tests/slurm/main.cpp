// Main of tests/slurm: starts the local Slurm the tests submit to, or says why it cannot and exits 77 (ctest:
// Skipped), runs the tests, and stops the daemons whatever the outcome.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <memory>

#include "slurm/support_local_slurm.hpp"

int main(int argc, char* argv[]) {
  std::unique_ptr<vlb::testing::LocalSlurm> cluster;
  try {
    cluster = std::make_unique<vlb::testing::LocalSlurm>();
  } catch (const vlb::testing::SlurmUnavailable& reason) {
    std::printf("SKIPPED: no local Slurm: %s\n", reason.what());
    return 77;
  }
  std::printf("local Slurm up in %s (%d stand-in GPU(s))\n", cluster->folder().c_str(), cluster->gpus());
  vlb::testing::set_local_slurm(cluster.get());
  const int result = Catch::Session().run(argc, argv);
  vlb::testing::set_local_slurm(nullptr);
  cluster.reset();
  return result;
}
