#pragma once
// The results schema (docs/results-schema.md): the one list of JSON keys of every record a results file holds. The
// writer, the reader, the validator's messages and the tests' comparisons all derive from these lists
// (core/json_fields.hpp), so a new field is one line here (and its row in the doc, whose example a test reads back).
#include <string>
#include <string_view>
#include <tuple>

#include "harness/core/json_fields.hpp"
#include "harness/report/results.hpp"

namespace vlb {

inline constexpr std::string_view kResultsSchemaKey = "schema";
inline constexpr std::string_view kResultsSchemaName = "vlbench-results";

template <>
struct JsonCodec<CaseStatus> {
  static nlohmann::json write(CaseStatus status) { return std::string(status_name(status)); }
  static void read(const JsonValue& node, CaseStatus& status);
};

template <>
struct JsonCodec<TimerKind> {
  static nlohmann::json write(TimerKind timer) { return timer == TimerKind::kCupti ? "cupti" : "events"; }
  static void read(const JsonValue& node, TimerKind& timer);
};

template <>
struct JsonFields<ProblemShape> {
  static constexpr auto list = std::tuple{json_field("batch_size", &ProblemShape::batch),
                                          json_field("lang_seq_len", &ProblemShape::lang_seq),
                                          json_field("vision_seq_len", &ProblemShape::vision_seq)};
};

template <>
struct JsonFields<Tolerance> {
  static constexpr auto list = std::tuple{json_field("atol", &Tolerance::atol), json_field("rtol", &Tolerance::rtol),
                                          json_field("required_match_ratio", &Tolerance::required_match_ratio)};
};

template <>
struct JsonFields<EnvironmentRecord> {
  using R = EnvironmentRecord;
  static constexpr auto list = std::tuple{json_field("hostname", &R::hostname),
                                          json_field("gpu_name", &R::gpu_name),
                                          json_field("gpu_uuid", &R::gpu_uuid),
                                          json_field("compute_capability", &R::compute_capability),
                                          json_field("sm_count", &R::sm_count),
                                          json_field("l2_bytes", &R::l2_bytes),
                                          json_field("global_memory_bytes", &R::global_memory_bytes),
                                          json_field("max_sm_clock_mhz", &R::max_sm_clock_mhz),
                                          json_field("max_memory_clock_mhz", &R::max_memory_clock_mhz),
                                          json_field("driver_version", &R::driver_version),
                                          json_field("runtime_version", &R::runtime_version),
                                          json_field("cuda_toolkit_version", &R::cuda_toolkit_version),
                                          json_field("cublas_version", &R::cublas_version),
                                          json_field("cutlass_version", &R::cutlass_version),
                                          json_field("gpu_spec_key", &R::gpu_spec_key),
                                          json_field("sandbox", &R::sandbox)};
};

template <>
struct JsonFields<AdaptiveStop> {
  using R = AdaptiveStop;
  static constexpr auto list = std::tuple{json_field("min_samples", &R::min_samples),
                                          json_field("min_time_s", &R::min_time_s),
                                          json_field("target_relative_noise", &R::target_relative_noise),
                                          json_field("timeout_s", &R::timeout_s),
                                          json_field("max_samples", &R::max_samples)};
};

template <>
struct JsonFields<TimingSettings> {
  using R = TimingSettings;
  static constexpr auto list = std::tuple{json_field("warmup_iterations", &R::warmup_iterations),
                                          json_field("timed_iterations", &R::timed_iterations),
                                          json_field("adaptive", &R::adaptive), json_field("timer", &R::timer),
                                          json_field("flush_l2", &R::flush_l2)};
};

template <>
struct JsonFields<RunSettingsRecord> {
  using R = RunSettingsRecord;
  static constexpr auto list = std::tuple{json_field("suite", &R::suite),
                                          json_field("solutions", &R::solutions),
                                          json_field("case_selectors", &R::case_selectors),
                                          json_field("seed", &R::seed),
                                          json_field("correctness_rounds", &R::correctness_rounds),
                                          json_field("timing", &R::timing),
                                          json_field("isolation", &R::isolation),
                                          json_field("baseline_source", &R::baseline_source)};
};

template <>
struct JsonFields<ComparisonStats> {
  using R = ComparisonStats;
  static constexpr auto list = std::tuple{json_field("elements", &R::elements),
                                          json_field("matched", &R::matched),
                                          json_field("matched_ratio", &R::matched_ratio),
                                          json_field("max_abs_error", &R::max_abs_error),
                                          json_field("max_rel_error", &R::max_rel_error),
                                          json_field("worst_index", &R::worst_index),
                                          json_field("worst_output", &R::worst_output),
                                          json_field("worst_reference", &R::worst_reference),
                                          json_field("nan_count", &R::nan_count),
                                          json_field("inf_count", &R::inf_count),
                                          json_field("output_all_zero", &R::output_all_zero),
                                          json_field("reference_all_zero", &R::reference_all_zero)};
};

template <>
struct JsonFields<CorrectnessRound> {
  using R = CorrectnessRound;
  static constexpr auto list = std::tuple{json_field("seed", &R::seed), json_field("positions", &R::positions),
                                          json_field("stats", &R::stats), json_field("status", &R::status),
                                          json_field("reason", &R::reason)};
};

template <>
struct JsonFields<Statistics> {
  using R = Statistics;
  static constexpr auto list =
      std::tuple{json_field("count", &R::count), json_field("mean", &R::mean),     json_field("median", &R::median),
                 json_field("min", &R::min),     json_field("max", &R::max),       json_field("stddev", &R::stddev),
                 json_field("p10", &R::p10),     json_field("p90", &R::p90)};
};

template <>
struct JsonFields<ClockTelemetry> {
  using R = ClockTelemetry;
  static constexpr auto list = std::tuple{json_field("sm_clock_mhz_before", &R::sm_clock_mhz_before),
                                          json_field("sm_clock_mhz_after", &R::sm_clock_mhz_after),
                                          json_field("max_sm_clock_mhz", &R::max_sm_clock_mhz),
                                          json_field("throttled", &R::throttled)};
};

template <>
struct JsonFields<TimedCallCheck> {
  using R = TimedCallCheck;
  static constexpr auto list = std::tuple{json_field("seed", &R::seed), json_field("matched_ratio", &R::matched_ratio),
                                          json_field("max_abs_error", &R::max_abs_error)};
};

template <>
struct JsonFields<OutsideClockRecord> {
  using R = OutsideClockRecord;
  static constexpr auto list = std::tuple{json_field("calibration_calls", &R::calibration_calls),
                                          json_field("overhead_ms", &R::overhead_ms),
                                          json_field("spread_ms", &R::spread_ms),
                                          json_field("cupti_overhead_ms", &R::cupti_overhead_ms),
                                          json_field("slack_ms", &R::slack_ms)};
};

template <>
struct JsonFields<KernelShare> {
  using R = KernelShare;
  static constexpr auto list = std::tuple{json_field("name", &R::name), json_field("grid", &R::grid),
                                          json_field("block", &R::block), json_field("median_ms", &R::median_ms),
                                          json_field("share", &R::share)};
};

template <>
struct JsonFields<KernelBreakdown> {
  using R = KernelBreakdown;
  static constexpr auto list = std::tuple{json_field("calls", &R::calls), json_field("span_ms", &R::span_ms),
                                          json_field("kernels", &R::kernels), json_field("gaps_ms", &R::gaps_ms),
                                          json_field("gaps_total_ms", &R::gaps_total_ms)};
};

template <>
struct JsonFields<TimingResult> {
  using R = TimingResult;
  static constexpr auto list = std::tuple{json_field("samples_ms", &R::samples_ms),
                                          json_field("event_samples_ms", &R::event_samples_ms),
                                          json_field("cupti_samples_ms", &R::cupti_samples_ms),
                                          json_field("outside_samples_ms", &R::outside_samples_ms),
                                          json_field("outside_clock", &R::outside_clock),
                                          json_field("judged_calls", &R::judged_calls),
                                          json_field("breakdown", &R::breakdown),
                                          json_field("stats", &R::stats),
                                          json_field("stop_reason", &R::stop_reason),
                                          json_field("clocks", &R::clocks),
                                          json_field("cupti_available", &R::cupti_available),
                                          json_field("violations", &R::violations)};
};

template <>
struct JsonFields<WorkCount> {
  static constexpr auto list = std::tuple{json_field("macs", &WorkCount::macs), json_field("flops", &WorkCount::flops),
                                          json_field("bytes", &WorkCount::bytes)};
};

template <>
struct JsonFields<SolEstimate> {
  using R = SolEstimate;
  static constexpr auto list =
      std::tuple{json_field("compute_ms", &R::compute_ms), json_field("memory_ms", &R::memory_ms),
                 json_field("t_sol_ms", &R::t_sol_ms), json_field("compute_bound", &R::compute_bound)};
};

template <>
struct JsonFields<CaseResult> {
  using R = CaseResult;
  static constexpr auto list = std::tuple{json_field("solution", &R::solution),
                                          json_field("case_index", &R::case_index),
                                          json_field("uuid", &R::uuid),
                                          json_field("shape", &R::shape),
                                          json_field("tolerance", &R::tolerance),
                                          json_field("status", &R::status),
                                          json_field("reason", &R::reason),
                                          json_field("correctness", &R::correctness),
                                          json_field("timing", &R::timing),
                                          json_field("work", &R::work),
                                          json_field("sol", &R::sol),
                                          json_field("sol_fraction", &R::sol_fraction),
                                          json_field("baseline_ms", &R::baseline_ms),
                                          json_field("score", &R::score),
                                          json_field("implausibly_fast", &R::implausibly_fast),
                                          json_field("wall_time_s", &R::wall_time_s),
                                          json_field("load_s", &R::load_s),
                                          json_field("first_call_ms", &R::first_call_ms),
                                          json_field("peak_device_memory_bytes", &R::peak_device_memory_bytes)};
};

template <>
struct JsonFields<SummaryRecord> {
  using R = SummaryRecord;
  static constexpr auto list = std::tuple{json_field("cases", &R::cases),
                                          json_field("passed", &R::passed),
                                          json_field("failed", &R::failed),
                                          json_field("skipped", &R::skipped),
                                          json_field("latency_statistic", &R::latency_statistic),
                                          json_field("mean_latency_ms", &R::mean_latency_ms),
                                          json_field("mean_score", &R::mean_score),
                                          json_field("mean_sol_fraction", &R::mean_sol_fraction),
                                          json_field("wall_time_s", &R::wall_time_s)};
};

// The document also carries "schema": kResultsSchemaName, written and checked by results_json.cpp.
template <>
struct JsonFields<RunRecord> {
  using R = RunRecord;
  static constexpr auto list = std::tuple{json_field("schema_version", &R::schema_version),
                                          json_field("harness_version", &R::harness_version),
                                          json_field("git_commit", &R::git_commit),
                                          json_field("git_dirty", &R::git_dirty),
                                          json_field("argv", &R::argv),
                                          json_field("timestamp", &R::timestamp),
                                          json_field("environment", &R::environment),
                                          json_field("settings", &R::settings),
                                          json_field("cases", &R::cases),
                                          json_field("summary", &R::summary)};
};

}  // namespace vlb
