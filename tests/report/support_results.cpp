#include "report/support_results.hpp"


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
  const double overhead_ms = uniform(rng, 0.15, 0.25);
  for (int i = 0; i < count; ++i) {
    const double event = median_ms * (1.0 + noise(rng));
    timing.event_samples_ms.push_back(event);
    timing.cupti_samples_ms.push_back(event * uniform(rng, 0.97, 0.995));
    timing.outside_samples_ms.push_back(event + overhead_ms + uniform(rng, 0, 0.004));
    timing.judged_calls.push_back({rng(), uniform(rng, 0.995, 1.0), uniform(rng, 0.001, 0.01)});
  }
  timing.outside_clock = OutsideClockRecord{24, overhead_ms, uniform(rng, 0.001, 0.004), overhead_ms * 1.02,
                                            uniform(rng, 0.01, 0.03)};
  KernelBreakdown breakdown;
  breakdown.calls = count;
  breakdown.span_ms = median_ms * 0.98;
  breakdown.kernels = {{"q_projection<…>", {132, 1, 1}, {384, 1, 1}, median_ms * 0.5, 0.51},
                       {"[memcpy]", {}, {}, median_ms * 0.4, 0.41}};
  breakdown.gaps_ms = {median_ms * 0.08};
  breakdown.gaps_total_ms = median_ms * 0.08;
  timing.breakdown = breakdown;
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
  result.load_s = uniform(rng, 0.01, 30.0);
  result.first_call_ms = uniform(rng, 0.1, 40000.0);
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
                                      13000, 13000, "13.0.48", "13.0.0.19", "4.2.0", "H200_SXM", "landlock ABI 7, seccomp"};
  run.settings.suite = "all";
  run.settings.solutions = {"flash_sm90", "naive"};
  run.settings.case_selectors = {"0", "3", "1x64x196"};
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

void require_same_case(const CaseResult& expected, const CaseResult& actual) {
  INFO("case " << expected.case_index << " " << expected.uuid);
  require_same(expected, actual, "case");
}

void require_same_run(const RunRecord& expected, const RunRecord& actual) { require_same(expected, actual, "run"); }

}  // namespace vlb::test
