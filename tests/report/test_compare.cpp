// compare_runs: verdicts need a significant difference in the raw samples (Mann-Whitney U) and a change beyond the
// threshold; pairing by uuid or shape; the printout and the JSON; and the rank test itself.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <random>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/report/compare.hpp"
#include "harness/report/rank_test.hpp"
#include "harness/timing/statistics.hpp"
#include "report/support_capture.hpp"

namespace vlb {
namespace {

std::uint64_t fresh_seed() { return std::random_device{}() * 0x9E3779B97F4A7C15ull + std::random_device{}(); }

// `count` samples around `median_ms` with a relative spread (normal), as a timed run records them.
CaseResult measured(std::mt19937_64& rng, const std::string& solution, const std::string& uuid, double median_ms,
                    double spread, int count = 50, ProblemShape shape = {1, 256, 392}) {
  CaseResult result;
  result.solution = solution;
  result.uuid = uuid;
  result.case_index = uuid.empty() ? -1 : static_cast<int>(uuid.size() % 16);
  result.shape = shape;
  result.status = CaseStatus::kPassed;
  std::normal_distribution<double> noise(0.0, spread);
  TimingResult timing;
  for (int i = 0; i < count; ++i) timing.samples_ms.push_back(median_ms * std::max(0.5, 1.0 + noise(rng)));
  timing.stats = compute_statistics(timing.samples_ms);
  result.timing = timing;
  return result;
}

RunRecord run_of(std::vector<CaseResult> cases) {
  RunRecord run;
  run.cases = std::move(cases);
  return run;
}

const ComparisonRow& row_for(const std::vector<ComparisonRow>& rows, const std::string& uuid) {
  for (const ComparisonRow& row : rows) {
    if (row.uuid == uuid) return row;
  }
  FAIL("no comparison row for " << uuid);
  return rows.front();
}

TEST_CASE("verdicts need a significant difference and a change beyond the threshold", "[report][compare]") {
  const std::uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const RunRecord a = run_of({
      measured(rng, "flash", "aaaaaaaa-11pct-slower-noisy", 1.0, 0.06),
      measured(rng, "flash", "bbbbbbbb-20pct-faster", 1.0, 0.01),
      measured(rng, "flash", "cccccccc-2pct-faster", 1.0, 0.002),
      measured(rng, "flash", "dddddddd-unchanged", 1.0, 0.02),
      measured(rng, "flash", "eeeeeeee-three-samples", 1.0, 0.05, 3),
      measured(rng, "flash", "", 2.0, 0.01, 50, {1, 64, 196}),
  });
  const RunRecord b = run_of({
      measured(rng, "flash", "aaaaaaaa-11pct-slower-noisy", 1.11, 0.06),  // the old noise band called this "same"
      measured(rng, "flash", "bbbbbbbb-20pct-faster", 0.8, 0.01),
      measured(rng, "flash", "cccccccc-2pct-faster", 0.98, 0.002),        // significant, but under 5%
      measured(rng, "flash", "dddddddd-unchanged", 1.0, 0.02),
      measured(rng, "flash", "eeeeeeee-three-samples", 0.7, 0.05, 3),     // 3 against 3 cannot reach p < 0.01
      measured(rng, "flash", "", 1.0, 0.01, 50, {1, 64, 196}),            // custom: matched by shape
      measured(rng, "flash", "", 1.0, 0.01, 50, {2, 64, 196}),            // another shape: no partner
      measured(rng, "flash", "ffffffff-only-in-b", 1.0, 0.01),
  });
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 6);
  const ComparisonRow& slower = row_for(rows, "aaaaaaaa-11pct-slower-noisy");
  CHECK(slower.verdict == "slower");
  CHECK(slower.p_value < kCompareSignificance);
  CHECK(slower.samples_a == 50);
  CHECK(slower.ratio == Approx(b.cases[0].timing->stats.median / a.cases[0].timing->stats.median));
  CHECK(row_for(rows, "bbbbbbbb-20pct-faster").verdict == "faster");
  CHECK(row_for(rows, "cccccccc-2pct-faster").verdict == "same");
  CHECK(row_for(rows, "cccccccc-2pct-faster").p_value < kCompareSignificance);
  CHECK(row_for(rows, "dddddddd-unchanged").verdict == "same");
  CHECK(row_for(rows, "eeeeeeee-three-samples").verdict == "same");
  CHECK(row_for(rows, "eeeeeeee-three-samples").p_value >= kCompareSignificance);
  const ComparisonRow& custom = row_for(rows, "");
  CHECK(custom.verdict == "faster");
  CHECK(custom.case_index == -1);
  CHECK(any_regression(rows));

  // A lower threshold turns the significant 2% into a verdict; a higher one hides the 11%.
  CHECK(row_for(compare_runs(a, b, 0.01), "cccccccc-2pct-faster").verdict == "faster");
  CHECK(row_for(compare_runs(a, b, 0.2), "aaaaaaaa-11pct-slower-noisy").verdict == "same");
  CHECK_FALSE(any_regression(compare_runs(a, b, 0.2)));
  CHECK_THROWS_AS(compare_runs(a, b, -0.1), UsageError);
  CHECK_THROWS_AS(compare_runs(a, b, std::nan("")), UsageError);
}

TEST_CASE("compare_runs matches by solution, and skips cases not timed on both sides", "[report][compare]") {
  std::mt19937_64 rng(fresh_seed());
  CaseResult skipped = measured(rng, "naive", "ffffffff-skipped", 1.0, 0.01);
  skipped.status = CaseStatus::kSkipped;
  skipped.timing.reset();
  const RunRecord a = run_of({measured(rng, "flash", "11111111", 1.0, 0.001), measured(rng, "naive", "11111111", 5.0, 0.001),
                              measured(rng, "naive", "ffffffff-skipped", 1.0, 0.01)});
  const RunRecord b = run_of({measured(rng, "naive", "11111111", 4.0, 0.001), measured(rng, "flash", "11111111", 1.2, 0.001),
                              skipped});
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 2);
  for (const ComparisonRow& row : rows) {
    if (row.solution == "naive") {
      CHECK(row.ratio == Approx(0.8).epsilon(0.01));
      CHECK(row.verdict == "faster");
    } else {
      REQUIRE(row.solution == "flash");
      CHECK(row.ratio == Approx(1.2).epsilon(0.01));
      CHECK(row.verdict == "slower");
    }
  }
}

TEST_CASE("a case timed in A that fails in B is a regression, in the rows, the printout, the JSON and for CI",
          "[report][compare]") {
  std::mt19937_64 rng(fresh_seed());
  CaseResult broken = measured(rng, "flash", "33333333-broken", 1.0, 0.01);
  broken.status = CaseStatus::kIncorrectNumerical;
  broken.timing.reset();
  CaseResult unchecked = measured(rng, "flash", "44444444-check-only", 1.0, 0.01);
  unchecked.timing.reset();  // PASSED without timing (--check-only): nothing to compare, no regression
  const RunRecord a = run_of({measured(rng, "flash", "33333333-broken", 1.0, 0.01),
                              measured(rng, "flash", "44444444-check-only", 1.0, 0.01)});
  const std::vector<ComparisonRow> rows = compare_runs(a, run_of({broken, unchecked}));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].verdict == "failed");
  CHECK(rows[0].status_b == "INCORRECT_NUMERICAL");
  CHECK(std::isnan(rows[0].ratio));
  CHECK(any_regression(rows));
  const std::string text = test::capture_output([&](std::FILE* out) { print_comparison(out, rows); });
  CHECK_THAT(text, Catch::Contains("failed: INCORRECT_NUMERICAL"));
  CHECK_THAT(text, Catch::Contains("failed on 1 of 1 cases"));
  const nlohmann::json document = comparison_json(rows, 0.05);
  CHECK(document.at("failed") == 1);
  CHECK(document.at("rows")[0].at("ratio").is_null());
  CHECK(document.at("rows")[0].at("status_b") == "INCORRECT_NUMERICAL");
}

TEST_CASE("a REWARD_HACK case keeps its samples but is no latency: a regression in B, no baseline in A",
          "[report][compare]") {
  std::mt19937_64 rng(fresh_seed());
  CaseResult hack = measured(rng, "flash", "55555555-hack", 1.0, 0.01);
  hack.status = CaseStatus::kRewardHack;
  hack.timing->samples_ms.front() = 0.0;  // a call that launched nothing, as CUPTI times it
  hack.timing->stats = compute_statistics(hack.timing->samples_ms);
  const RunRecord honest = run_of({measured(rng, "flash", "55555555-hack", 1.0, 0.01)});
  const RunRecord cheating = run_of({hack});

  const std::vector<ComparisonRow> regression = compare_runs(honest, cheating);
  REQUIRE(regression.size() == 1);
  CHECK(regression[0].verdict == "failed");
  CHECK(regression[0].status_b == "REWARD_HACK");
  CHECK(any_regression(regression));
  CHECK(compare_runs(cheating, honest).empty());
}

TEST_CASE("two single-solution runs compare one solution against the other; the printout and the JSON",
          "[report][compare]") {
  std::mt19937_64 rng(fresh_seed());
  const RunRecord a = run_of({measured(rng, "naive", "22222222", 3.0, 0.001)});
  const RunRecord b = run_of({measured(rng, "flash", "22222222", 1.0, 0.001)});
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].solution == "naive vs flash");
  REQUIRE(rows[0].verdict == "faster");
  const std::string text = test::capture_output([&](std::FILE* out) { print_comparison(out, rows); });
  CHECK_THAT(text, Catch::Contains("naive vs flash"));
  CHECK_THAT(text, Catch::Contains(fmt::format("{:.2f}", rows[0].latency_a_ms * 1000.0)));
  CHECK_THAT(text, Catch::Contains(fmt::format("{:.3f}", rows[0].ratio)));
  CHECK_THAT(text, Catch::Contains("B is faster on 1, slower on 0, the same on 0 of 1 cases; geometric mean B/A"));
  CHECK(test::capture_output([](std::FILE* out) { print_comparison(out, {}); }) == "no case was timed in both runs\n");

  const nlohmann::json document = comparison_json(rows, 0.05);
  CHECK(document.at("threshold") == 0.05);
  CHECK(document.at("significance") == kCompareSignificance);
  CHECK(document.at("faster") == 1);
  CHECK(document.at("slower") == 0);
  CHECK(document.at("rows")[0].at("verdict") == "faster");
  CHECK(document.at("rows")[0].at("uuid") == "22222222");
  CHECK(document.at("rows")[0].at("median_a_ms") == rows[0].latency_a_ms);
  CHECK(document.at("rows")[0].at("p_value") == rows[0].p_value);
}

TEST_CASE("the Mann-Whitney U test matches the textbook values", "[report][compare]") {
  // Separated samples of five: U = 0, z = -2.507 (continuity-corrected), p = 0.0122 (as SciPy's asymptotic test).
  const std::vector<double> low = {1, 2, 3, 4, 5}, high = {6, 7, 8, 9, 10};
  const RankTestResult separated = mann_whitney(low, high);
  CHECK(separated.u == 0.0);
  CHECK(separated.z == Approx(-2.5067).epsilon(1e-4));
  CHECK(separated.p_value == Approx(0.012186).epsilon(1e-4));
  CHECK(mann_whitney(high, low).u == 25.0);
  // Ties take midranks and shrink the variance.
  const RankTestResult tied = mann_whitney(std::vector<double>{1, 2, 2, 3}, std::vector<double>{2, 3, 3, 4});
  CHECK(tied.u == 3.0);
  CHECK(tied.p_value == Approx(0.172034).epsilon(1e-4));
  // No evidence at all: equal values, or an empty side.
  CHECK(mann_whitney(std::vector<double>{2, 2, 2}, std::vector<double>{2, 2}).p_value == 1.0);
  CHECK(mann_whitney(std::vector<double>{}, high).p_value == 1.0);
}

}  // namespace
}  // namespace vlb
