#pragma once
// Runs a built binary (vlbench, with the test modules where asked) as a user would, capturing exit code and output.
#include <string>
#include <vector>

namespace vlb::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string vlbench_binary();              // $VLBENCH_BINARY (set by ctest), else <build>/vlbench
// A test-only solution module (tests/CMakeLists.txt): <build>/test_modules/vlbench_solution_<name>.so.
std::string test_module(const std::string& name);
// The environment entry that makes vlbench see exactly these modules (VLBENCH_SOLUTION_MODULES).
std::string solution_modules_entry(const std::vector<std::string>& modules);
// The build's own modules folder (<build>/solution_modules), for a module list that keeps them.
std::string build_modules_folder();
// `environment` entries ("NAME=value") are set for the child only.
ProcessResult run_process(const std::string& binary, const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment = {});
inline ProcessResult run_vlbench(const std::vector<std::string>& arguments) {
  return run_process(vlbench_binary(), arguments);
}

}  // namespace vlb::testing
