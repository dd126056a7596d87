// workloads/gpus.json: a JSON list of GPU specs for speed of light, first match by device-name substring wins.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "harness/core/errors.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/json_diagnostics.hpp"

namespace vlb {
namespace {

using suite_detail::child_path;
using suite_detail::element_path;
using suite_detail::Json;
using suite_detail::JsonSource;

double require_positive(const JsonSource& source, const Json& object, std::string_view parent, std::string_view key) {
  const std::string path = child_path(parent, key);
  const double value = suite_detail::require_finite_number(source, suite_detail::require_field(source, object, parent, key), path);
  if (value <= 0) source.fail(path, fmt::format("must be positive, got {}", value));
  return value;
}

std::vector<std::string> read_match(const JsonSource& source, const Json& object, std::string_view parent) {
  const std::string path = child_path(parent, "match");
  const Json& list = suite_detail::require_field(source, object, parent, "match");
  if (!list.is_array()) source.fail(path, "must be a list of device-name substrings (may be empty)");
  std::vector<std::string> match;
  for (std::size_t i = 0; i < list.size(); ++i) {
    match.push_back(suite_detail::require_non_empty_string(source, list[i], element_path(path, i)));
  }
  return match;
}

GpuSpec read_spec(const JsonSource& source, const Json& entry, std::string_view path) {
  suite_detail::require_object(source, entry, path);
  suite_detail::reject_unknown_fields(source, entry, path,
                                      {"key", "match", "dense_bf16_tflops", "memory_tb_per_s", "fixed_overhead_ms",
                                       "source"});
  GpuSpec spec;
  spec.key = suite_detail::require_non_empty_string(source, suite_detail::require_field(source, entry, path, "key"),
                                                    child_path(path, "key"));
  spec.match = read_match(source, entry, path);
  spec.dense_bf16_flops_per_s = require_positive(source, entry, path, "dense_bf16_tflops") * 1e12;
  spec.memory_bytes_per_s = require_positive(source, entry, path, "memory_tb_per_s") * 1e12;
  const std::string overhead_path = child_path(path, "fixed_overhead_ms");
  spec.fixed_overhead_ms = suite_detail::require_finite_number(
      source, suite_detail::require_field(source, entry, path, "fixed_overhead_ms"), overhead_path);
  if (spec.fixed_overhead_ms < 0) source.fail(overhead_path, "must be >= 0");
  spec.source = suite_detail::require_non_empty_string(
      source, suite_detail::require_field(source, entry, path, "source"), child_path(path, "source"));
  return spec;
}

std::vector<std::string> keys_of(const std::vector<GpuSpec>& specs) {
  std::vector<std::string> keys;
  for (const GpuSpec& spec : specs) keys.push_back(spec.key);
  return keys;
}

}  // namespace

std::vector<GpuSpec> load_gpu_specs(const std::string& path) {
  const JsonSource source{path};
  const Json document = suite_detail::parse_json(source, suite_detail::read_text_file(path, "GPU spec table"));
  if (!document.is_array() || document.empty()) source.fail("", "must be a non-empty JSON list of GPU specs");
  std::vector<GpuSpec> specs;
  std::set<std::string> seen_keys;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const std::string entry_path = element_path("", i);
    GpuSpec spec = read_spec(source, document[i], entry_path);
    if (!seen_keys.insert(spec.key).second) {
      source.fail(child_path(entry_path, "key"), fmt::format("duplicate key '{}'", spec.key));
    }
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
