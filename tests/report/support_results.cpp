#include "report/support_results.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace vlb::test {

namespace {

double uniform(std::mt19937_64& rng, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(rng);
}

std::string hex_uuid(std::mt19937_64& rng) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string uuid;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) uuid += '-';
    uuid += kDigits[rng() % 16];
  }
  return uuid;
}

double percentile(const std::vector<double>& sorted, double fraction) {
  const double position = fraction * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

Statistics statistics_of(const std::vector<double>& samples) {
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  Statistics stats;
  stats.count = samples.size();
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  double squares = 0;
  for (double sample : samples) squares += (sample - stats.mean) * (sample - stats.mean);
  stats.stddev = samples.size() > 1 ? std::sqrt(squares / static_cast<double>(samples.size() - 1)) : 0.0;
  stats.median = percentile(sorted, 0.5);
  stats.p10 = percentile(sorted, 0.1);
  stats.p90 = percentile(sorted, 0.9);
  stats.min = sorted.front();
  stats.max = sorted.back();
  return stats;
}

ComparisonStats make_comparison(std::mt19937_64& rng, std::int64_t elements, double matched_ratio) {
  ComparisonStats stats;
  stats.elements = elements;
  stats.matched = static_cast<std::int64_t>(std::floor(matched_ratio * static_cast<double>(elements)));
  stats.matched_ratio = static_cast<double>(stats.matched) / static_cast<double>(elements);
  stats.max_abs_error = uniform(rng, 1e-3, 2e-2);
  stats.max_rel_error = uniform(rng, 1e-2, 9e-2);
  stats.worst_index = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(elements));
  stats.worst_output = uniform(rng, -3, 3);
  stats.worst_reference = uniform(rng, -3, 3);
  return stats;
}

CorrectnessRound make_round(std::mt19937_64& rng, const char* positions, std::int64_t elements) {
  CorrectnessRound round;
  round.seed = rng();
  round.positions = positions;
  round.stats = make_comparison(rng, elements, uniform(rng, 0.995, 1.0));
  round.status = CaseStatus::kPassed;
  return round;
}

ProblemShape random_shape(std::mt19937_64& rng) {
  return ProblemShape{static_cast<std::int64_t>(1 + rng() % 8), static_cast<std::int64_t>(64 << (rng() % 4)),
                      static_cast<std::int64_t>(196 * (1 + rng() % 4))};
}

CaseResult make_case_base(std::mt19937_64& rng, const std::string& solution, int case_index) {
  CaseResult result;
  result.solution = solution;
  result.case_index = case_index;
  result.uuid = case_index >= 0 ? hex_uuid(rng) : std::string();
  result.shape = random_shape(rng);
  result.tolerance = Tolerance{uniform(rng, 0.001, 0.02), 0.05, 0.99};
  result.work = WorkCount{uniform(rng, 1e9, 1e11), 0, uniform(rng, 1e7, 1e9)};
  result.work.flops = 2 * result.work.macs;
  result.wall_time_s = uniform(rng, 0.1, 4.0);
  return result;
}

}  // namespace

TimingResult make_timing(std::mt19937_64& rng, double median_ms, double relative_noise, int count) {
  std::normal_distribution<double> noise(0.0, relative_noise);
  TimingResult timing;
  for (int i = 0; i < count; ++i) {
    const double event = median_ms * (1.0 + noise(rng));
    timing.event_samples_ms.push_back(event);
    timing.cupti_samples_ms.push_back(event * uniform(rng, 0.97, 0.995));
  }
  timing.samples_ms = timing.event_samples_ms;
  timing.stats = statistics_of(timing.samples_ms);
  timing.stop_reason = "iterations";
  timing.clocks = ClockTelemetry{uniform(rng, 1700, 1980), uniform(rng, 1700, 1980), 1980, false};
  timing.cupti_available = true;
  return timing;
}

CaseResult make_passed_case(std::mt19937_64& rng, const std::string& solution, int case_index, double median_ms) {
  CaseResult result = make_case_base(rng, solution, case_index);
  result.status = CaseStatus::kPassed;
  const std::int64_t elements = result.shape.lang_rows() * 4096;
  result.correctness = {make_round(rng, "official", elements), make_round(rng, "random", elements)};
  result.timing = make_timing(rng, median_ms, 0.02, 40 + static_cast<int>(rng() % 20));
  const double t_sol_ms = median_ms * uniform(rng, 0.2, 0.6);
  result.sol = SolEstimate{t_sol_ms, t_sol_ms * uniform(rng, 0.1, 0.9), t_sol_ms, true};
  result.sol_fraction = t_sol_ms / result.timing->stats.median;
  result.baseline_ms = median_ms * uniform(rng, 1.5, 4.0);
  result.score = 1.0 / (1.0 + (result.timing->stats.median - t_sol_ms) / (*result.baseline_ms - t_sol_ms));
  result.peak_device_memory_bytes = std::floor(uniform(rng, 1e8, 4e9));
  return result;
}

RunRecord make_seeded_run(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  RunRecord run;
  run.harness_version = "0.1.0";
  run.git_commit = hex_uuid(rng).substr(0, 12);
  run.git_dirty = true;
  run.argv = {"vlbench", "run", "--solution", "flash_sm90", "--seed", std::to_string(seed)};
  run.timestamp = "2026-11-29T15:30:00Z";
  run.environment = EnvironmentRecord{"bench-node-7", "NVIDIA H200", "GPU-" + hex_uuid(rng), 90, 132,
                                      std::size_t{50331648}, std::size_t{150754820096}, 1980, 3201,
                                      13000, 13000, "13.0.48", "13.0.0.19", "4.2.0", "H200_SXM"};
  run.settings.suite = "all";
  run.settings.solutions = {"flash_sm90", "naive"};
  run.settings.case_selectors = {"0", "3", "1,64,196"};
  run.settings.seed = rng();
  run.settings.correctness_rounds = 2;
  run.settings.timing.warmup_iterations = 7;
  run.settings.timing.timed_iterations = 33;
  run.settings.timing.adaptive = AdaptiveStop{25, 0.75, 0.005, 45.0, 5000};
  run.settings.timing.timer = TimerKind::kCupti;
  run.settings.timing.flush_l2 = false;
  run.settings.isolation = true;
  run.settings.baseline_source = "NVIDIA SOL-ExecBench published B200 values";

  run.cases.push_back(make_passed_case(rng, "flash_sm90", 0, uniform(rng, 0.05, 0.5)));

  CaseResult numerical = make_passed_case(rng, "flash_sm90", 1, uniform(rng, 0.05, 0.5));
  numerical.status = CaseStatus::kIncorrectNumerical;
  numerical.reason = "96.1% of elements within tolerance (need 99%)";
  numerical.correctness.back().status = CaseStatus::kIncorrectNumerical;
  numerical.correctness.back().reason = numerical.reason;
  numerical.correctness.back().stats.worst_output = std::numeric_limits<double>::quiet_NaN();
  numerical.correctness.back().stats.nan_count = 17;
  numerical.correctness.back().stats.inf_count = 3;
  numerical.timing.reset();
  numerical.score.reset();
  numerical.sol_fraction.reset();
  run.cases.push_back(numerical);

  CaseResult crashed = make_case_base(rng, "flash_sm90", 2);
  crashed.status = CaseStatus::kRuntimeError;
  crashed.reason = "CUDA error: an illegal memory access was encountered (flash_sm90.cu:211)";
  crashed.sol = SolEstimate{0.031, 0.004, 0.031, true};
  run.cases.push_back(crashed);

  CaseResult skipped = make_case_base(rng, "naive", 3);
  skipped.status = CaseStatus::kSkipped;
  skipped.reason = "needs 96 GiB of device memory, 80 GiB free";
  run.cases.push_back(skipped);

  CaseResult custom = make_passed_case(rng, "naive", -1, uniform(rng, 0.5, 2.0));
  custom.timing->samples_ms = custom.timing->cupti_samples_ms;
  custom.timing->stats = statistics_of(custom.timing->samples_ms);
  custom.timing->stop_reason = "min_samples+noise";
  custom.timing->clocks.throttled = true;
  custom.baseline_ms.reset();
  custom.score.reset();
  custom.implausibly_fast = true;
  run.cases.push_back(custom);

  CaseResult hack = make_passed_case(rng, "naive", 5, uniform(rng, 0.05, 0.5));
  hack.status = CaseStatus::kRewardHack;
  hack.reason = "a kernel ran outside the timed window";
  hack.timing->violations = {"kernel 'side_kernel' ran on stream 0x7f outside the events window",
                             "kernel set changed between calls 3 and 4"};
  hack.timing->cupti_samples_ms.clear();
  hack.timing->cupti_available = false;
  run.cases.push_back(hack);

  run.summary = summarize(run.cases, uniform(rng, 10, 100));
  return run;
}

namespace {

bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void require_same_doubles(const std::vector<double>& expected, const std::vector<double>& actual) {
  REQUIRE(expected.size() == actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("index " << i);
    REQUIRE(same_double(expected[i], actual[i]));
  }
}

void require_same_optional(const std::optional<double>& expected, const std::optional<double>& actual) {
  REQUIRE(expected.has_value() == actual.has_value());
  if (expected) REQUIRE(same_double(*expected, *actual));
}

void require_same_statistics(const Statistics& e, const Statistics& a) {
  REQUIRE(e.count == a.count);
  REQUIRE(same_double(e.mean, a.mean));
  REQUIRE(same_double(e.median, a.median));
  REQUIRE(same_double(e.min, a.min));
  REQUIRE(same_double(e.max, a.max));
  REQUIRE(same_double(e.stddev, a.stddev));
  REQUIRE(same_double(e.p10, a.p10));
  REQUIRE(same_double(e.p90, a.p90));
}

void require_same_timing(const TimingResult& e, const TimingResult& a) {
  require_same_doubles(e.samples_ms, a.samples_ms);
  require_same_doubles(e.event_samples_ms, a.event_samples_ms);
  require_same_doubles(e.cupti_samples_ms, a.cupti_samples_ms);
  require_same_statistics(e.stats, a.stats);
  REQUIRE(e.stop_reason == a.stop_reason);
  REQUIRE(same_double(e.clocks.sm_clock_mhz_before, a.clocks.sm_clock_mhz_before));
  REQUIRE(same_double(e.clocks.sm_clock_mhz_after, a.clocks.sm_clock_mhz_after));
  REQUIRE(same_double(e.clocks.max_sm_clock_mhz, a.clocks.max_sm_clock_mhz));
  REQUIRE(e.clocks.throttled == a.clocks.throttled);
  REQUIRE(e.cupti_available == a.cupti_available);
  REQUIRE(e.violations == a.violations);
}

void require_same_round(const CorrectnessRound& e, const CorrectnessRound& a) {
  REQUIRE(e.seed == a.seed);
  REQUIRE(e.positions == a.positions);
  REQUIRE(e.stats.elements == a.stats.elements);
  REQUIRE(e.stats.matched == a.stats.matched);
  REQUIRE(same_double(e.stats.matched_ratio, a.stats.matched_ratio));
  REQUIRE(same_double(e.stats.max_abs_error, a.stats.max_abs_error));
  REQUIRE(same_double(e.stats.max_rel_error, a.stats.max_rel_error));
  REQUIRE(e.stats.worst_index == a.stats.worst_index);
  REQUIRE(same_double(e.stats.worst_output, a.stats.worst_output));
  REQUIRE(same_double(e.stats.worst_reference, a.stats.worst_reference));
  REQUIRE(e.stats.nan_count == a.stats.nan_count);
  REQUIRE(e.stats.inf_count == a.stats.inf_count);
  REQUIRE(e.stats.output_all_zero == a.stats.output_all_zero);
  REQUIRE(e.stats.reference_all_zero == a.stats.reference_all_zero);
  REQUIRE(e.status == a.status);
  REQUIRE(e.reason == a.reason);
}

void require_same_environment(const EnvironmentRecord& e, const EnvironmentRecord& a) {
  REQUIRE(e.hostname == a.hostname);
  REQUIRE(e.gpu_name == a.gpu_name);
  REQUIRE(e.gpu_uuid == a.gpu_uuid);
  REQUIRE(e.compute_capability == a.compute_capability);
  REQUIRE(e.sm_count == a.sm_count);
  REQUIRE(e.l2_bytes == a.l2_bytes);
  REQUIRE(e.global_memory_bytes == a.global_memory_bytes);
  REQUIRE(same_double(e.max_sm_clock_mhz, a.max_sm_clock_mhz));
  REQUIRE(same_double(e.max_memory_clock_mhz, a.max_memory_clock_mhz));
  REQUIRE(e.driver_version == a.driver_version);
  REQUIRE(e.runtime_version == a.runtime_version);
  REQUIRE(e.cuda_toolkit_version == a.cuda_toolkit_version);
  REQUIRE(e.cublas_version == a.cublas_version);
  REQUIRE(e.cutlass_version == a.cutlass_version);
  REQUIRE(e.gpu_spec_key == a.gpu_spec_key);
}

void require_same_settings(const RunSettingsRecord& e, const RunSettingsRecord& a) {
  REQUIRE(e.suite == a.suite);
  REQUIRE(e.solutions == a.solutions);
  REQUIRE(e.case_selectors == a.case_selectors);
  REQUIRE(e.seed == a.seed);
  REQUIRE(e.correctness_rounds == a.correctness_rounds);
  REQUIRE(e.timing.warmup_iterations == a.timing.warmup_iterations);
  REQUIRE(e.timing.timed_iterations == a.timing.timed_iterations);
  REQUIRE(e.timing.adaptive.has_value() == a.timing.adaptive.has_value());
  if (e.timing.adaptive) {
    REQUIRE(e.timing.adaptive->min_samples == a.timing.adaptive->min_samples);
    REQUIRE(same_double(e.timing.adaptive->min_time_s, a.timing.adaptive->min_time_s));
    REQUIRE(same_double(e.timing.adaptive->target_relative_noise, a.timing.adaptive->target_relative_noise));
    REQUIRE(same_double(e.timing.adaptive->timeout_s, a.timing.adaptive->timeout_s));
    REQUIRE(e.timing.adaptive->max_samples == a.timing.adaptive->max_samples);
  }
  REQUIRE(e.timing.timer == a.timing.timer);
  REQUIRE(e.timing.flush_l2 == a.timing.flush_l2);
  REQUIRE(e.isolation == a.isolation);
  REQUIRE(e.baseline_source == a.baseline_source);
}

void require_same_summary(const SummaryRecord& e, const SummaryRecord& a) {
  REQUIRE(e.cases == a.cases);
  REQUIRE(e.passed == a.passed);
  REQUIRE(e.failed == a.failed);
  REQUIRE(e.skipped == a.skipped);
  REQUIRE(e.latency_statistic == a.latency_statistic);
  require_same_optional(e.mean_latency_ms, a.mean_latency_ms);
  require_same_optional(e.mean_score, a.mean_score);
  require_same_optional(e.mean_sol_fraction, a.mean_sol_fraction);
  REQUIRE(same_double(e.wall_time_s, a.wall_time_s));
}

}  // namespace

void require_same_case(const CaseResult& e, const CaseResult& a) {
  INFO("case " << e.case_index << " " << e.uuid);
  REQUIRE(e.solution == a.solution);
  REQUIRE(e.case_index == a.case_index);
  REQUIRE(e.uuid == a.uuid);
  REQUIRE(e.shape == a.shape);
  REQUIRE(same_double(e.tolerance.atol, a.tolerance.atol));
  REQUIRE(same_double(e.tolerance.rtol, a.tolerance.rtol));
  REQUIRE(same_double(e.tolerance.required_match_ratio, a.tolerance.required_match_ratio));
  REQUIRE(e.status == a.status);
  REQUIRE(e.reason == a.reason);
  REQUIRE(e.correctness.size() == a.correctness.size());
  for (std::size_t i = 0; i < e.correctness.size(); ++i) require_same_round(e.correctness[i], a.correctness[i]);
  REQUIRE(e.timing.has_value() == a.timing.has_value());
  if (e.timing) require_same_timing(*e.timing, *a.timing);
  REQUIRE(same_double(e.work.macs, a.work.macs));
  REQUIRE(same_double(e.work.flops, a.work.flops));
  REQUIRE(same_double(e.work.bytes, a.work.bytes));
  REQUIRE(e.sol.has_value() == a.sol.has_value());
  if (e.sol) {
    REQUIRE(same_double(e.sol->compute_ms, a.sol->compute_ms));
    REQUIRE(same_double(e.sol->memory_ms, a.sol->memory_ms));
    REQUIRE(same_double(e.sol->t_sol_ms, a.sol->t_sol_ms));
    REQUIRE(e.sol->compute_bound == a.sol->compute_bound);
  }
  require_same_optional(e.sol_fraction, a.sol_fraction);
  require_same_optional(e.baseline_ms, a.baseline_ms);
  require_same_optional(e.score, a.score);
  REQUIRE(e.implausibly_fast == a.implausibly_fast);
  REQUIRE(same_double(e.wall_time_s, a.wall_time_s));
  require_same_optional(e.peak_device_memory_bytes, a.peak_device_memory_bytes);
}

void require_same_run(const RunRecord& e, const RunRecord& a) {
  REQUIRE(e.schema_version == a.schema_version);
  REQUIRE(e.harness_version == a.harness_version);
  REQUIRE(e.git_commit == a.git_commit);
  REQUIRE(e.git_dirty == a.git_dirty);
  REQUIRE(e.argv == a.argv);
  REQUIRE(e.timestamp == a.timestamp);
  require_same_environment(e.environment, a.environment);
  require_same_settings(e.settings, a.settings);
  REQUIRE(e.cases.size() == a.cases.size());
  for (std::size_t i = 0; i < e.cases.size(); ++i) require_same_case(e.cases[i], a.cases[i]);
  REQUIRE(e.summary.has_value() == a.summary.has_value());
  if (e.summary) require_same_summary(*e.summary, *a.summary);
}

}  // namespace vlb::test
