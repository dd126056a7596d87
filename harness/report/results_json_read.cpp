// JSON -> RunRecord, checking every required key and type on the way (InputError naming the JSON path).
#include <string>

#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_json_detail.hpp"

namespace vlb::report_detail {

namespace {

CaseStatus status_from(const JsonNode& node) {
  const std::string name = node.as_string();
  try {
    return parse_status(name);
  } catch (const InputError&) {
    node.fail("unknown status '" + name +
              "' (expected PASSED, INCORRECT_NUMERICAL, INCORRECT_SHAPE, RUNTIME_ERROR, TIMEOUT, REWARD_HACK or "
              "SKIPPED)");
  }
}

TimerKind timer_from(const JsonNode& node) {
  const std::string name = node.as_string();
  if (name == "events") return TimerKind::kEvents;
  if (name == "cupti") return TimerKind::kCupti;
  node.fail("unknown timer '" + name + "' (expected \"events\" or \"cupti\")");
}

ProblemShape shape_from(const JsonNode& node) {
  ProblemShape shape;
  shape.batch = node.at("batch_size").as_int64();
  shape.lang_seq = node.at("lang_seq_len").as_int64();
  shape.vision_seq = node.at("vision_seq_len").as_int64();
  return shape;
}

Tolerance tolerance_from(const JsonNode& node) {
  Tolerance tolerance;
  tolerance.atol = node.at("atol").as_double();
  tolerance.rtol = node.at("rtol").as_double();
  tolerance.required_match_ratio = node.at("required_match_ratio").as_double();
  return tolerance;
}

EnvironmentRecord environment_from(const JsonNode& node) {
  EnvironmentRecord environment;
  environment.hostname = node.at("hostname").as_string();
  environment.gpu_name = node.at("gpu_name").as_string();
  environment.gpu_uuid = node.at("gpu_uuid").as_string();
  environment.compute_capability = node.at("compute_capability").as_int();
  environment.sm_count = node.at("sm_count").as_int();
  environment.l2_bytes = node.at("l2_bytes").as_uint64();
  environment.global_memory_bytes = node.at("global_memory_bytes").as_uint64();
  environment.max_sm_clock_mhz = node.at("max_sm_clock_mhz").as_double();
  environment.max_memory_clock_mhz = node.at("max_memory_clock_mhz").as_double();
  environment.driver_version = node.at("driver_version").as_int();
  environment.runtime_version = node.at("runtime_version").as_int();
  environment.cuda_toolkit_version = node.at("cuda_toolkit_version").as_string();
  environment.cublas_version = node.at("cublas_version").as_string();
  environment.cutlass_version = node.at("cutlass_version").as_string();
  environment.gpu_spec_key = node.at("gpu_spec_key").as_string();
  return environment;
}

AdaptiveStop adaptive_from(const JsonNode& node) {
  AdaptiveStop adaptive;
  adaptive.min_samples = node.at("min_samples").as_int();
  adaptive.min_time_s = node.at("min_time_s").as_double();
  adaptive.target_relative_noise = node.at("target_relative_noise").as_double();
  adaptive.timeout_s = node.at("timeout_s").as_double();
  adaptive.max_samples = node.at("max_samples").as_int();
  return adaptive;
}

TimingSettings timing_settings_from(const JsonNode& node) {
  TimingSettings timing;
  timing.warmup_iterations = node.at("warmup_iterations").as_int();
  timing.timed_iterations = node.at("timed_iterations").as_int();
  const JsonNode adaptive = node.at("adaptive");
  if (!adaptive.is_null()) timing.adaptive = adaptive_from(adaptive);
  timing.timer = timer_from(node.at("timer"));
  timing.flush_l2 = node.at("flush_l2").as_bool();
  return timing;
}

RunSettingsRecord settings_from(const JsonNode& node) {
  RunSettingsRecord settings;
  settings.suite = node.at("suite").as_string();
  settings.solutions = node.at("solutions").as_string_array();
  settings.case_selectors = node.at("case_selectors").as_string_array();
  settings.seed = node.at("seed").as_uint64();
  settings.correctness_rounds = node.at("correctness_rounds").as_int();
  settings.timing = timing_settings_from(node.at("timing"));
  settings.isolation = node.at("isolation").as_bool();
  settings.baseline_source = node.at("baseline_source").as_string();
  return settings;
}

ComparisonStats comparison_stats_from(const JsonNode& node) {
  ComparisonStats stats;
  stats.elements = node.at("elements").as_int64();
  stats.matched = node.at("matched").as_int64();
  stats.matched_ratio = node.at("matched_ratio").as_double();
  stats.max_abs_error = node.at("max_abs_error").as_double();
  stats.max_rel_error = node.at("max_rel_error").as_double();
  stats.worst_index = node.at("worst_index").as_int64();
  stats.worst_output = node.at("worst_output").as_double();
  stats.worst_reference = node.at("worst_reference").as_double();
  stats.nan_count = node.at("nan_count").as_int64();
  stats.inf_count = node.at("inf_count").as_int64();
  stats.output_all_zero = node.at("output_all_zero").as_bool();
  stats.reference_all_zero = node.at("reference_all_zero").as_bool();
  return stats;
}

CorrectnessRound correctness_round_from(const JsonNode& node) {
  CorrectnessRound round;
  round.seed = node.at("seed").as_uint64();
  round.positions = node.at("positions").as_string();
  round.stats = comparison_stats_from(node.at("stats"));
  round.status = status_from(node.at("status"));
  round.reason = node.at("reason").as_string();
  return round;
}

Statistics statistics_from(const JsonNode& node) {
  Statistics stats;
  stats.count = node.at("count").as_uint64();
  stats.mean = node.at("mean").as_double();
  stats.median = node.at("median").as_double();
  stats.min = node.at("min").as_double();
  stats.max = node.at("max").as_double();
  stats.stddev = node.at("stddev").as_double();
  stats.p10 = node.at("p10").as_double();
  stats.p90 = node.at("p90").as_double();
  return stats;
}

ClockTelemetry clocks_from(const JsonNode& node) {
  ClockTelemetry clocks;
  clocks.sm_clock_mhz_before = node.at("sm_clock_mhz_before").as_double();
  clocks.sm_clock_mhz_after = node.at("sm_clock_mhz_after").as_double();
  clocks.max_sm_clock_mhz = node.at("max_sm_clock_mhz").as_double();
  clocks.throttled = node.at("throttled").as_bool();
  return clocks;
}

TimingResult timing_from(const JsonNode& node) {
  TimingResult timing;
  timing.samples_ms = node.at("samples_ms").as_double_array();
  timing.event_samples_ms = node.at("event_samples_ms").as_double_array();
  timing.cupti_samples_ms = node.at("cupti_samples_ms").as_double_array();
  timing.stats = statistics_from(node.at("stats"));
  timing.stop_reason = node.at("stop_reason").as_string();
  timing.clocks = clocks_from(node.at("clocks"));
  timing.cupti_available = node.at("cupti_available").as_bool();
  timing.violations = node.at("violations").as_string_array();
  return timing;
}

WorkCount work_from(const JsonNode& node) {
  WorkCount work;
  work.macs = node.at("macs").as_double();
  work.flops = node.at("flops").as_double();
  work.bytes = node.at("bytes").as_double();
  return work;
}

SolEstimate sol_from(const JsonNode& node) {
  SolEstimate sol;
  sol.compute_ms = node.at("compute_ms").as_double();
  sol.memory_ms = node.at("memory_ms").as_double();
  sol.t_sol_ms = node.at("t_sol_ms").as_double();
  sol.compute_bound = node.at("compute_bound").as_bool();
  return sol;
}

SummaryRecord summary_from(const JsonNode& node) {
  SummaryRecord summary;
  summary.cases = node.at("cases").as_int();
  summary.passed = node.at("passed").as_int();
  summary.failed = node.at("failed").as_int();
  summary.skipped = node.at("skipped").as_int();
  summary.latency_statistic = node.at("latency_statistic").as_string();
  summary.mean_latency_ms = node.at("mean_latency_ms").as_optional_double();
  summary.mean_score = node.at("mean_score").as_optional_double();
  summary.mean_sol_fraction = node.at("mean_sol_fraction").as_optional_double();
  summary.wall_time_s = node.at("wall_time_s").as_double();
  return summary;
}

void check_schema(const JsonNode& root) {
  const JsonNode schema = root.at("schema");
  if (schema.as_string() != kResultsSchemaName) {
    schema.fail("expected \"" + std::string(kResultsSchemaName) + "\", found \"" + schema.as_string() + "\"");
  }
  const JsonNode version = root.at("schema_version");
  if (version.as_int() != kResultsSchemaVersion) {
    version.fail("unsupported schema version " + std::to_string(version.as_int()) + " (this vlbench reads version " +
                 std::to_string(kResultsSchemaVersion) + ")");
  }
}

}  // namespace

CaseResult case_result_from_node(const JsonNode& node) {
  CaseResult result;
  result.solution = node.at("solution").as_string();
  result.case_index = node.at("case_index").as_int();
  result.uuid = node.at("uuid").as_string();
  result.shape = shape_from(node.at("shape"));
  result.tolerance = tolerance_from(node.at("tolerance"));
  result.status = status_from(node.at("status"));
  result.reason = node.at("reason").as_string();
  const JsonNode correctness = node.at("correctness");
  for (std::size_t i = 0; i < correctness.array_size(); ++i) {
    result.correctness.push_back(correctness_round_from(correctness.at(i)));
  }
  const JsonNode timing = node.at("timing");
  if (!timing.is_null()) result.timing = timing_from(timing);
  result.work = work_from(node.at("work"));
  const JsonNode sol = node.at("sol");
  if (!sol.is_null()) result.sol = sol_from(sol);
  result.sol_fraction = node.at("sol_fraction").as_optional_double();
  result.baseline_ms = node.at("baseline_ms").as_optional_double();
  result.score = node.at("score").as_optional_double();
  result.implausibly_fast = node.at("implausibly_fast").as_bool();
  result.wall_time_s = node.at("wall_time_s").as_double();
  result.peak_device_memory_bytes = node.at("peak_device_memory_bytes").as_optional_double();
  return result;
}

RunRecord run_record_from_node(const JsonNode& root) {
  check_schema(root);
  RunRecord run;
  run.schema_version = root.at("schema_version").as_int();
  run.harness_version = root.at("harness_version").as_string();
  run.git_commit = root.at("git_commit").as_string();
  run.git_dirty = root.at("git_dirty").as_bool();
  run.argv = root.at("argv").as_string_array();
  run.timestamp = root.at("timestamp").as_string();
  run.environment = environment_from(root.at("environment"));
  run.settings = settings_from(root.at("settings"));
  const JsonNode cases = root.at("cases");
  for (std::size_t i = 0; i < cases.array_size(); ++i) run.cases.push_back(case_result_from_node(cases.at(i)));
  const JsonNode summary = root.at("summary");
  if (!summary.is_null()) run.summary = summary_from(summary);
  return run;
}

}  // namespace vlb::report_detail

namespace vlb {

RunRecord run_record_from_json(const nlohmann::json& document) {
  const std::string source(report_detail::kUnnamedDocument);
  return report_detail::run_record_from_node(report_detail::JsonNode(document, source));
}

}  // namespace vlb
