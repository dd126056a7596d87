// RunRecord -> JSON. Key names are the struct field names; docs/results-schema.md lists them all.
#include <string>

#include "harness/report/results_json.hpp"
#include "harness/report/results_json_detail.hpp"

namespace vlb {

namespace {

using nlohmann::json;
using report_detail::json_number;
using report_detail::json_optional_number;

json number_array(const std::vector<double>& values) {
  json array = json::array();
  for (double value : values) array.push_back(json_number(value));
  return array;
}

std::string_view timer_name(TimerKind timer) { return timer == TimerKind::kCupti ? "cupti" : "events"; }

json to_json(const ProblemShape& shape) {
  return {{"batch_size", shape.batch}, {"lang_seq_len", shape.lang_seq}, {"vision_seq_len", shape.vision_seq}};
}

json to_json(const Tolerance& tolerance) {
  return {{"atol", json_number(tolerance.atol)},
          {"rtol", json_number(tolerance.rtol)},
          {"required_match_ratio", json_number(tolerance.required_match_ratio)}};
}

json to_json(const EnvironmentRecord& environment) {
  return {{"hostname", environment.hostname},
          {"gpu_name", environment.gpu_name},
          {"gpu_uuid", environment.gpu_uuid},
          {"compute_capability", environment.compute_capability},
          {"sm_count", environment.sm_count},
          {"l2_bytes", static_cast<std::uint64_t>(environment.l2_bytes)},
          {"global_memory_bytes", static_cast<std::uint64_t>(environment.global_memory_bytes)},
          {"max_sm_clock_mhz", json_number(environment.max_sm_clock_mhz)},
          {"max_memory_clock_mhz", json_number(environment.max_memory_clock_mhz)},
          {"driver_version", environment.driver_version},
          {"runtime_version", environment.runtime_version},
          {"cuda_toolkit_version", environment.cuda_toolkit_version},
          {"cublas_version", environment.cublas_version},
          {"cutlass_version", environment.cutlass_version},
          {"gpu_spec_key", environment.gpu_spec_key}};
}

json to_json(const AdaptiveStop& adaptive) {
  return {{"min_samples", adaptive.min_samples},
          {"min_time_s", json_number(adaptive.min_time_s)},
          {"target_relative_noise", json_number(adaptive.target_relative_noise)},
          {"timeout_s", json_number(adaptive.timeout_s)},
          {"max_samples", adaptive.max_samples}};
}

json to_json(const TimingSettings& timing) {
  return {{"warmup_iterations", timing.warmup_iterations},
          {"timed_iterations", timing.timed_iterations},
          {"adaptive", timing.adaptive ? to_json(*timing.adaptive) : json(nullptr)},
          {"timer", timer_name(timing.timer)},
          {"flush_l2", timing.flush_l2}};
}

json to_json(const RunSettingsRecord& settings) {
  return {{"suite", settings.suite},
          {"solutions", settings.solutions},
          {"case_selectors", settings.case_selectors},
          {"seed", settings.seed},
          {"correctness_rounds", settings.correctness_rounds},
          {"timing", to_json(settings.timing)},
          {"isolation", settings.isolation},
          {"baseline_source", settings.baseline_source}};
}

json to_json(const ComparisonStats& stats) {
  return {{"elements", stats.elements},
          {"matched", stats.matched},
          {"matched_ratio", json_number(stats.matched_ratio)},
          {"max_abs_error", json_number(stats.max_abs_error)},
          {"max_rel_error", json_number(stats.max_rel_error)},
          {"worst_index", stats.worst_index},
          {"worst_output", json_number(stats.worst_output)},
          {"worst_reference", json_number(stats.worst_reference)},
          {"nan_count", stats.nan_count},
          {"inf_count", stats.inf_count},
          {"output_all_zero", stats.output_all_zero},
          {"reference_all_zero", stats.reference_all_zero}};
}

json to_json(const CorrectnessRound& round) {
  return {{"seed", round.seed},
          {"positions", round.positions},
          {"stats", to_json(round.stats)},
          {"status", status_name(round.status)},
          {"reason", round.reason}};
}

json to_json(const Statistics& stats) {
  return {{"count", static_cast<std::uint64_t>(stats.count)},
          {"mean", json_number(stats.mean)},
          {"median", json_number(stats.median)},
          {"min", json_number(stats.min)},
          {"max", json_number(stats.max)},
          {"stddev", json_number(stats.stddev)},
          {"p10", json_number(stats.p10)},
          {"p90", json_number(stats.p90)}};
}

json to_json(const ClockTelemetry& clocks) {
  return {{"sm_clock_mhz_before", json_number(clocks.sm_clock_mhz_before)},
          {"sm_clock_mhz_after", json_number(clocks.sm_clock_mhz_after)},
          {"max_sm_clock_mhz", json_number(clocks.max_sm_clock_mhz)},
          {"throttled", clocks.throttled}};
}

json to_json(const TimingResult& timing) {
  return {{"samples_ms", number_array(timing.samples_ms)},
          {"event_samples_ms", number_array(timing.event_samples_ms)},
          {"cupti_samples_ms", number_array(timing.cupti_samples_ms)},
          {"stats", to_json(timing.stats)},
          {"stop_reason", timing.stop_reason},
          {"clocks", to_json(timing.clocks)},
          {"cupti_available", timing.cupti_available},
          {"violations", timing.violations}};
}

json to_json(const WorkCount& work) {
  return {{"macs", json_number(work.macs)}, {"flops", json_number(work.flops)}, {"bytes", json_number(work.bytes)}};
}

json to_json(const SolEstimate& sol) {
  return {{"compute_ms", json_number(sol.compute_ms)},
          {"memory_ms", json_number(sol.memory_ms)},
          {"t_sol_ms", json_number(sol.t_sol_ms)},
          {"compute_bound", sol.compute_bound}};
}

json to_json(const SummaryRecord& summary) {
  return {{"cases", summary.cases},
          {"passed", summary.passed},
          {"failed", summary.failed},
          {"skipped", summary.skipped},
          {"latency_statistic", summary.latency_statistic},
          {"mean_latency_ms", json_optional_number(summary.mean_latency_ms)},
          {"mean_score", json_optional_number(summary.mean_score)},
          {"mean_sol_fraction", json_optional_number(summary.mean_sol_fraction)},
          {"wall_time_s", json_number(summary.wall_time_s)}};
}

}  // namespace

json to_json(const CaseResult& result) {
  json correctness = json::array();
  for (const CorrectnessRound& round : result.correctness) correctness.push_back(to_json(round));
  return {{"solution", result.solution},
          {"case_index", result.case_index},
          {"uuid", result.uuid},
          {"shape", to_json(result.shape)},
          {"tolerance", to_json(result.tolerance)},
          {"status", status_name(result.status)},
          {"reason", result.reason},
          {"correctness", std::move(correctness)},
          {"timing", result.timing ? to_json(*result.timing) : json(nullptr)},
          {"work", to_json(result.work)},
          {"sol", result.sol ? to_json(*result.sol) : json(nullptr)},
          {"sol_fraction", json_optional_number(result.sol_fraction)},
          {"baseline_ms", json_optional_number(result.baseline_ms)},
          {"score", json_optional_number(result.score)},
          {"implausibly_fast", result.implausibly_fast},
          {"wall_time_s", json_number(result.wall_time_s)},
          {"peak_device_memory_bytes", json_optional_number(result.peak_device_memory_bytes)}};
}

json to_json(const RunRecord& run) {
  json cases = json::array();
  for (const CaseResult& result : run.cases) cases.push_back(to_json(result));
  return {{"schema", report_detail::kResultsSchemaName},
          {"schema_version", run.schema_version},
          {"harness_version", run.harness_version},
          {"git_commit", run.git_commit},
          {"git_dirty", run.git_dirty},
          {"argv", run.argv},
          {"timestamp", run.timestamp},
          {"environment", to_json(run.environment)},
          {"settings", to_json(run.settings)},
          {"cases", std::move(cases)},
          {"summary", run.summary ? to_json(*run.summary) : json(nullptr)}};
}

}  // namespace vlb
