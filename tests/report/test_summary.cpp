// summarize(): counts by status, and means over the cases that have each figure.
#include <catch2/catch.hpp>

#include <random>

#include "harness/report/results.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

// A timed case whose samples have a median far from their mean, so that using the wrong statistic shows.
CaseResult timed_case(CaseStatus status, double median_ms, std::optional<double> score, std::optional<double> sol) {
  CaseResult result;
  result.solution = "flash_sm90";
  result.status = status;
  result.reason = status == CaseStatus::kPassed ? "" : "because";
  TimingResult timing;
  timing.samples_ms = {median_ms * 0.5, median_ms, median_ms * 4};
  timing.stats.count = 3;
  timing.stats.median = median_ms;
  timing.stats.mean = median_ms * 5.5 / 3;
  result.timing = timing;
  result.score = score;
  result.sol_fraction = sol;
  return result;
}

CaseResult untimed_case(CaseStatus status) {
  CaseResult result;
  result.solution = "flash_sm90";
  result.status = status;
  result.reason = "because";
  return result;
}

TEST_CASE("summarize counts statuses and averages medians, scores and SOL fractions", "[report][summary]") {
  const std::vector<CaseResult> cases = {
      timed_case(CaseStatus::kPassed, 0.2, 0.6, 0.4),
      timed_case(CaseStatus::kPassed, 0.4, std::nullopt, 0.2),
      timed_case(CaseStatus::kIncorrectNumerical, 0.9, std::nullopt, std::nullopt),
      untimed_case(CaseStatus::kSkipped),
      untimed_case(CaseStatus::kRuntimeError),
      untimed_case(CaseStatus::kRewardHack),
  };
  const SummaryRecord summary = summarize(cases, 12.5);
  REQUIRE(summary.cases == 6);
  REQUIRE(summary.passed == 2);
  REQUIRE(summary.failed == 3);
  REQUIRE(summary.skipped == 1);
  REQUIRE(summary.latency_statistic == "median");
  REQUIRE(summary.mean_latency_ms.value() == Approx((0.2 + 0.4 + 0.9) / 3).epsilon(1e-12));
  REQUIRE(summary.mean_score.value() == Approx(0.6).epsilon(1e-12));
  REQUIRE(summary.mean_sol_fraction.value() == Approx(0.3).epsilon(1e-12));
  REQUIRE(summary.wall_time_s == 12.5);
}

TEST_CASE("summarize leaves a mean absent when no case has the figure", "[report][summary]") {
  const SummaryRecord empty = summarize({}, 0.0);
  REQUIRE(empty.cases == 0);
  REQUIRE_FALSE(empty.mean_latency_ms.has_value());
  REQUIRE_FALSE(empty.mean_score.has_value());
  REQUIRE_FALSE(empty.mean_sol_fraction.has_value());

  const SummaryRecord untimed = summarize({untimed_case(CaseStatus::kSkipped), untimed_case(CaseStatus::kTimeout)}, 1);
  REQUIRE(untimed.skipped == 1);
  REQUIRE(untimed.failed == 1);
  REQUIRE_FALSE(untimed.mean_latency_ms.has_value());
}

TEST_CASE("summarize over a seeded run matches a direct computation", "[report][summary]") {
  const RunRecord run = test::make_seeded_run(GENERATE(11u, 12u, 13u));
  double latency_sum = 0, score_sum = 0, sol_sum = 0;
  int timed = 0, scored = 0, with_sol = 0;
  for (const CaseResult& result : run.cases) {
    if (result.timing) latency_sum += result.timing->stats.median, ++timed;
    if (result.score) score_sum += *result.score, ++scored;
    if (result.sol_fraction) sol_sum += *result.sol_fraction, ++with_sol;
  }
  REQUIRE(timed == 3);
  const SummaryRecord summary = summarize(run.cases, 3.0);
  REQUIRE(summary.passed == 2);
  REQUIRE(summary.failed == 3);
  REQUIRE(summary.skipped == 1);
  REQUIRE(summary.mean_latency_ms.value() == Approx(latency_sum / timed).epsilon(1e-12));
  REQUIRE(summary.mean_score.value() == Approx(score_sum / scored).epsilon(1e-12));
  REQUIRE(summary.mean_sol_fraction.value() == Approx(sol_sum / with_sol).epsilon(1e-12));
}

}  // namespace
}  // namespace vlb
