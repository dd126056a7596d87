// workloads/gpus.json: a JSON list of GPU specs for speed of light, first match by device-name substring wins.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {
namespace {

double require_positive(const JsonValue& entry, std::string_view key) {
  const JsonValue value = entry.at(key);
  const double number = value.as_finite_number();
  if (number <= 0) value.fail(fmt::format("must be positive, got {}", number));
  return number;
}

std::vector<std::string> read_match(const JsonValue& entry) {
  const JsonValue list = entry.at("match");
  if (!list.json().is_array()) list.fail("must be a list of device-name substrings (may be empty)");
  std::vector<std::string> match;
  for (const JsonValue& substring : list.elements()) match.push_back(substring.as_non_empty_string());
  return match;
}

GpuSpec read_spec(const JsonValue& entry) {
  entry.expect_object();
  entry.reject_unknown_fields(
      {"key", "match", "dense_bf16_tflops", "memory_tb_per_s", "fixed_overhead_ms", "source"});
  GpuSpec spec;
  spec.key = entry.at("key").as_non_empty_string();
  spec.match = read_match(entry);
  spec.dense_bf16_flops_per_s = require_positive(entry, "dense_bf16_tflops") * 1e12;
  spec.memory_bytes_per_s = require_positive(entry, "memory_tb_per_s") * 1e12;
  const JsonValue overhead = entry.at("fixed_overhead_ms");
  spec.fixed_overhead_ms = overhead.as_finite_number();
  if (spec.fixed_overhead_ms < 0) overhead.fail("must be >= 0");
  spec.source = entry.at("source").as_non_empty_string();
  return spec;
}

std::vector<std::string> keys_of(const std::vector<GpuSpec>& specs) {
  std::vector<std::string> keys;
  for (const GpuSpec& spec : specs) keys.push_back(spec.key);
  return keys;
}

}  // namespace

std::vector<GpuSpec> load_gpu_specs(const std::string& path) {
  const JsonDocument document = parse_json(read_text_file(path, "GPU spec table"), path);
  const JsonValue root(document, path);
  if (!document.is_array() || document.empty()) root.fail("must be a non-empty JSON list of GPU specs");
  std::vector<GpuSpec> specs;
  std::set<std::string> seen_keys;
  for (const JsonValue& entry : root.elements()) {
    GpuSpec spec = read_spec(entry);
    if (!seen_keys.insert(spec.key).second) entry.at("key").fail(fmt::format("duplicate key '{}'", spec.key));
    specs.push_back(std::move(spec));
  }
  return specs;
}

const GpuSpec& select_gpu_spec(const std::vector<GpuSpec>& specs, const std::string& device_name,
                               const std::optional<std::string>& override_key) {
  if (override_key) {
    for (const GpuSpec& spec : specs) {
      if (spec.key == *override_key) return spec;
    }
    throw UsageError(fmt::format("unknown GPU spec '{}'; the known keys are: {}", *override_key,
                                 fmt::join(keys_of(specs), ", ")));
  }
  for (const GpuSpec& spec : specs) {
    for (const std::string& substring : spec.match) {
      if (device_name.find(substring) != std::string::npos) return spec;
    }
  }
  throw UsageError(fmt::format("no GPU spec matches the device '{}'; choose one by key ({}) or add the device to "
                               "workloads/gpus.json",
                               device_name, fmt::join(keys_of(specs), ", ")));
}

}  // namespace vlb
