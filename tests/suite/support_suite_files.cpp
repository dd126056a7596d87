#include <sstream>

#include "harness/core/errors.hpp"
#include "suite/suite_test_files.hpp"

namespace vlb::testing {

std::filesystem::path source_workloads_dir() { return std::filesystem::path(VLBENCH_SOURCE_DIR) / "workloads"; }

namespace {
template <class ErrorType>
void require_error(const std::function<void()>& call, const std::vector<std::string>& fragments) {
  bool thrown = false;
  try {
    call();
  } catch (const ErrorType& error) {
    thrown = true;
    INFO("message: " << error.what());
    for (const std::string& fragment : fragments) {
      INFO("expected fragment: " << fragment);
      CHECK(std::string(error.what()).find(fragment) != std::string::npos);
    }
  }
  CHECK(thrown);
}
}  // namespace

OrderedJson builtin_definition_json() {
  return OrderedJson::parse(read_text(source_workloads_dir() / "definition.json"));
}

std::vector<OrderedJson> builtin_workload_lines() {
  std::istringstream text(read_text(source_workloads_dir() / "workloads.jsonl"));
  std::vector<OrderedJson> lines;
  for (std::string line; std::getline(text, line);) {
    if (!line.empty()) lines.push_back(OrderedJson::parse(line));
  }
  return lines;
}

std::string join_lines(const std::vector<OrderedJson>& lines) {
  std::string text;
  for (const OrderedJson& line : lines) text += line.dump() + "\n";
  return text;
}

void require_input_error(const std::function<void()>& call, const std::vector<std::string>& fragments) {
  require_error<InputError>(call, fragments);
}

void require_usage_error(const std::function<void()>& call, const std::vector<std::string>& fragments) {
  require_error<UsageError>(call, fragments);
}

}  // namespace vlb::testing
