#pragma once
// Helpers of the suite tests: the built-in files as JSON to mutate, and an assertion that a call throws an InputError
// whose message names the file, the line and the field. Scratch folders come from support/scratch_folder.hpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/suite/suite.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::testing {

using OrderedJson = nlohmann::ordered_json;

std::filesystem::path source_workloads_dir();

OrderedJson builtin_definition_json();
// The built-in workload lines, parsed.
std::vector<OrderedJson> builtin_workload_lines();
std::string join_lines(const std::vector<OrderedJson>& lines);

// Runs `call`, requires an InputError, and requires every one of `fragments` in its message.
void require_input_error(const std::function<void()>& call, const std::vector<std::string>& fragments);
// The same for UsageError.
void require_usage_error(const std::function<void()>& call, const std::vector<std::string>& fragments);

}  // namespace vlb::testing
