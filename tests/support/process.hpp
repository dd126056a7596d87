#pragma once
// Runs a built binary (vlbench, or the adversarial build of it) as a user would, capturing exit code and output.
#include <string>
#include <vector>

namespace vlb::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string vlbench_binary();              // $VLBENCH_BINARY (set by ctest), else <build>/vlbench
std::string vlbench_adversarial_binary();  // $VLBENCH_ADVERSARIAL_BINARY, else <build>/vlbench_adversarial
// `environment` entries ("NAME=value") are set for the child only.
ProcessResult run_process(const std::string& binary, const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment = {});
inline ProcessResult run_vlbench(const std::vector<std::string>& arguments) {
  return run_process(vlbench_binary(), arguments);
}

}  // namespace vlb::testing
