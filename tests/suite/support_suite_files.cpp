#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>

#include "harness/core/errors.hpp"
#include "suite/suite_test_files.hpp"

namespace vlb::testing {

std::filesystem::path source_workloads_dir() { return std::filesystem::path(VLBENCH_SOURCE_DIR) / "workloads"; }

TempFolder::TempFolder() {
  std::random_device entropy;
  const auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const auto candidate =
        base / fmt::format("vlbench_suite_test_{:016x}", (std::uint64_t{entropy()} << 32) | entropy());
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("could not create a temporary folder");
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path TempFolder::write(const std::string& name, const std::string& contents) const {
  const auto file = path_ / name;
  std::ofstream stream(file, std::ios::binary);
  stream << contents;
  if (!stream) throw std::runtime_error("could not write " + file.string());
  return file;
}

namespace {
std::string read_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("could not read " + path.string());
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

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
  return OrderedJson::parse(read_file(source_workloads_dir() / "definition.json"));
}

std::vector<OrderedJson> builtin_workload_lines() {
  std::istringstream text(read_file(source_workloads_dir() / "workloads.jsonl"));
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
