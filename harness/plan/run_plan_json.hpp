#pragma once
// A RunPlan as JSON: how a parent hands its plan to a worker process, in full, without re-parsing a command line.
// The keys are the field lists below (core/json_fields.hpp); TimingSettings keeps the results schema's list. The form
// is internal (written and read by the same vlbench build), so a malformed document is a system error.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <tuple>

#include "harness/core/json_fields.hpp"
#include "harness/report/results_schema.hpp"
#include "harness/plan/run_plan.hpp"

namespace vlb {

template <>
struct JsonCodec<PositionPattern> {
  static nlohmann::json write(PositionPattern pattern) { return std::string(position_pattern_name(pattern)); }
  static void read(const JsonValue& node, PositionPattern& pattern);
};

template <>
struct JsonFields<CorrectnessPlan> {
  using R = CorrectnessPlan;
  static constexpr auto list = std::tuple{json_field("rounds", &R::rounds),
                                          json_field("forced_positions", &R::forced_positions),
                                          json_field("max_abs_error_cap", &R::max_abs_error_cap)};
};

template <>
struct JsonFields<ShardSpec> {
  static constexpr auto list =
      std::tuple{json_field("index", &ShardSpec::index), json_field("count", &ShardSpec::count)};
};

template <>
struct JsonFields<DeviceList> {
  static constexpr auto list =
      std::tuple{json_field("all", &DeviceList::all), json_field("ordinals", &DeviceList::ordinals)};
};

template <>
struct JsonFields<RunPlan> {
  using R = RunPlan;
  static constexpr auto list = std::tuple{json_field("suite", &R::suite),
                                          json_field("workloads_dir", &R::workloads_dir),
                                          json_field("solutions", &R::solutions),
                                          json_field("case_selectors", &R::case_selectors),
                                          json_field("custom_case_atol", &R::custom_case_atol),
                                          json_field("shards", &R::shards),
                                          json_field("seed", &R::seed),
                                          json_field("correctness", &R::correctness),
                                          json_field("time_cases", &R::time_cases),
                                          json_field("timing", &R::timing),
                                          json_field("device", &R::device),
                                          json_field("devices", &R::devices),
                                          json_field("gpu_spec_key", &R::gpu_spec_key),
                                          json_field("baseline_path", &R::baseline_path),
                                          json_field("json_path", &R::json_path),
                                          json_field("dump_dir", &R::dump_dir),
                                          json_field("isolation", &R::isolation),
                                          json_field("case_timeout_s", &R::case_timeout_s),
                                          json_field("nvtx_ranges", &R::nvtx_ranges),
                                          json_field("verbose", &R::verbose),
                                          json_field("argv", &R::argv)};
};

nlohmann::json plan_to_json(const RunPlan& plan);
RunPlan plan_from_json(const nlohmann::json& document);  // throws SystemError naming what is wrong

// A plan as a file of its own (a device worker's task), written atomically; reading throws SystemError.
void write_plan_file(const std::filesystem::path& path, const RunPlan& plan);
RunPlan read_plan_file(const std::filesystem::path& path);

}  // namespace vlb
