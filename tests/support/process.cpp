#include "support/process.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace vlb::testing {

std::string vlbench_binary() {
  if (const char* path = std::getenv("VLBENCH_BINARY")) return path;
  return std::string(VLBENCH_BINARY_DIR) + "/vlbench";
}

std::string test_module(const std::string& name) {
  const char* folder = std::getenv("VLBENCH_TEST_MODULES_DIR");
  return std::string(folder != nullptr ? folder : VLBENCH_BINARY_DIR "/test_modules") + "/vlbench_solution_" + name + ".so";
}

std::string solution_modules_entry(const std::vector<std::string>& modules) {
  std::string entry = "VLBENCH_SOLUTION_MODULES=";
  for (std::size_t i = 0; i < modules.size(); ++i) entry += (i == 0 ? "" : ":") + modules[i];
  return entry;
}

std::string build_modules_folder() { return std::string(VLBENCH_BINARY_DIR) + "/solution_modules"; }

namespace {
std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}
}  // namespace

ProcessResult run_process(const std::string& binary, const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment) {
  std::string command = environment.empty() ? "" : "env";
  for (const std::string& assignment : environment) command += " " + shell_quote(assignment);
  command += (command.empty() ? "" : " ") + shell_quote(binary);
  for (const std::string& argument : arguments) command += " " + shell_quote(argument);
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed for " + command);
  ProcessResult result;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace vlb::testing
