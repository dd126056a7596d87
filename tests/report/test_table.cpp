// The printers and compare_runs: verdicts by the measured noise, matching by uuid or shape, and what the text shows.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "harness/report/table.hpp"
#include "report/support_capture.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

CaseResult measured(const std::string& solution, const std::string& uuid, double median_ms, double stddev_ms,
                    ProblemShape shape = {1, 256, 392}) {
  CaseResult result;
  result.solution = solution;
  result.uuid = uuid;
  result.case_index = uuid.empty() ? -1 : static_cast<int>(uuid.size() % 16);
  result.shape = shape;
  result.status = CaseStatus::kPassed;
  TimingResult timing;
  timing.samples_ms = {median_ms - stddev_ms, median_ms, median_ms + stddev_ms};
  timing.stats.count = 3;
  timing.stats.median = median_ms;
  timing.stats.mean = median_ms;
  timing.stats.stddev = stddev_ms;
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

TEST_CASE("compare_runs gives verdicts by the measured noise", "[report][compare]") {
  const RunRecord a = run_of({
      measured("flash", "aaaaaaaa-faster", 1.0, 0.01),
      measured("flash", "bbbbbbbb-within-noise", 1.0, 0.05),
      measured("flash", "cccccccc-under-1pct", 1.0, 0.001),
      measured("flash", "dddddddd-slower", 1.0, 0.001),
      measured("flash", "", 2.0, 0.01, {1, 64, 196}),
  });
  const RunRecord b = run_of({
      measured("flash", "aaaaaaaa-faster", 0.9, 0.01),          // |0.1| > 2*0.01 and > 1%
      measured("flash", "bbbbbbbb-within-noise", 1.08, 0.02),   // |0.08| <= 2*0.05
      measured("flash", "cccccccc-under-1pct", 1.005, 0.001),  // |0.005| > 2*0.001 but < 1% of 1.0
      measured("flash", "dddddddd-slower", 1.05, 0.001),
      measured("flash", "", 1.0, 0.01, {1, 64, 196}),           // custom: matched by shape
      measured("flash", "", 1.0, 0.01, {2, 64, 196}),           // custom of another shape: no partner
      measured("flash", "eeeeeeee-only-in-b", 1.0, 0.01),
  });
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 5);
  REQUIRE(row_for(rows, "aaaaaaaa-faster").verdict == "faster");
  REQUIRE(row_for(rows, "aaaaaaaa-faster").ratio == Approx(0.9));
  REQUIRE(row_for(rows, "aaaaaaaa-faster").latency_a_ms == 1.0);
  REQUIRE(row_for(rows, "aaaaaaaa-faster").latency_b_ms == 0.9);
  REQUIRE(row_for(rows, "bbbbbbbb-within-noise").verdict == "same");
  REQUIRE(row_for(rows, "cccccccc-under-1pct").verdict == "same");
  REQUIRE(row_for(rows, "dddddddd-slower").verdict == "slower");
  REQUIRE(row_for(rows, "dddddddd-slower").ratio == Approx(1.05));
  const ComparisonRow& custom = row_for(rows, "");
  REQUIRE(custom.verdict == "faster");
  REQUIRE(custom.ratio == Approx(0.5));
  REQUIRE(custom.case_index == -1);
}

TEST_CASE("compare_runs matches by solution, and skips cases not timed on both sides", "[report][compare]") {
  CaseResult skipped = measured("naive", "ffffffff-skipped", 1.0, 0.01);
  skipped.status = CaseStatus::kSkipped;
  skipped.timing.reset();
  const RunRecord a = run_of({measured("flash", "11111111", 1.0, 0.001), measured("naive", "11111111", 5.0, 0.001),
                              measured("naive", "ffffffff-skipped", 1.0, 0.01)});
  const RunRecord b = run_of({measured("naive", "11111111", 4.0, 0.001), measured("flash", "11111111", 1.2, 0.001),
                              skipped});
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 2);
  for (const ComparisonRow& row : rows) {
    if (row.solution == "naive") {
      REQUIRE(row.ratio == Approx(0.8));
      REQUIRE(row.verdict == "faster");
    } else {
      REQUIRE(row.solution == "flash");
      REQUIRE(row.ratio == Approx(1.2));
      REQUIRE(row.verdict == "slower");
    }
  }
}

TEST_CASE("two single-solution runs compare one solution against the other", "[report][compare]") {
  const RunRecord a = run_of({measured("naive", "22222222", 3.0, 0.01)});
  const RunRecord b = run_of({measured("flash", "22222222", 1.0, 0.01)});
  const std::vector<ComparisonRow> rows = compare_runs(a, b);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].solution == "naive vs flash");
  REQUIRE(rows[0].verdict == "faster");
  const std::string text = test::capture_output([&](std::FILE* out) { print_comparison(out, rows); });
  REQUIRE(text.find("naive vs flash") != std::string::npos);
  REQUIRE(text.find("3000.00") != std::string::npos);
  REQUIRE(text.find("1000.00") != std::string::npos);
  REQUIRE(text.find("0.333") != std::string::npos);
  REQUIRE(text.find("B is faster on 1, slower on 0, the same on 0 of 1 cases; geometric mean B/A 0.333") !=
          std::string::npos);
  REQUIRE(test::capture_output([](std::FILE* out) { print_comparison(out, {}); }) ==
          "no case was timed in both runs\n");
}

TEST_CASE("the case table shows every column, dashes for absent figures, and notes", "[report][table]") {
  const RunRecord run = test::make_seeded_run(4711);
  const std::string text = test::capture_output([&](std::FILE* out) { print_case_table(out, run); });
  INFO(text);
  for (const char* column : {"#", "uuid", "B", "Lq", "Lv", "status", "median us", "p10-p90 %", "T_SOL us", "SOL %",
                             "score", "max abs err", "matched %"}) {
    REQUIRE(text.find(column) != std::string::npos);
  }
  REQUIRE(text.find("solution flash_sm90") != std::string::npos);
  REQUIRE(text.find("solution naive") != std::string::npos);
  const CaseResult& first = run.cases.at(0);
  REQUIRE(text.find(first.uuid.substr(0, 8)) != std::string::npos);
  REQUIRE(text.find(first.uuid.substr(0, 9)) == std::string::npos);  // 8 characters only
  REQUIRE(text.find(fmt::format("{:.2f}", first.timing->stats.median * 1000)) != std::string::npos);
  REQUIRE(text.find(fmt::format("{:.1f}", 100 * *first.sol_fraction)) != std::string::npos);
  REQUIRE(text.find(fmt::format("{:.3f}", *first.score)) != std::string::npos);
  REQUIRE(text.find("custom") != std::string::npos);
  REQUIRE(text.find("RUNTIME_ERROR: " + run.cases.at(2).reason) != std::string::npos);
  REQUIRE(text.find("SKIPPED: " + run.cases.at(3).reason) != std::string::npos);
  REQUIRE(text.find("implausibly fast") != std::string::npos);
  REQUIRE(text.find("SM clock throttled") != std::string::npos);
  // The RUNTIME_ERROR row has no median: a dash stands in its place.
  const std::size_t row_start = text.find(" RUNTIME_ERROR ");
  REQUIRE(row_start != std::string::npos);
  const std::string row = text.substr(row_start, text.find('\n', row_start) - row_start);
  REQUIRE(row.find(" - ") != std::string::npos);

  REQUIRE(test::capture_output([](std::FILE* out) { print_case_table(out, RunRecord{}); }) == "no cases\n");
}

TEST_CASE("the summary names the latency statistic, the GPU and the spec", "[report][table]") {
  RunRecord run = test::make_seeded_run(99);
  const std::string text = test::capture_output([&](std::FILE* out) { print_summary(out, run); });
  INFO(text);
  REQUIRE(text.find("passed 2, failed 3, skipped 1 of 6 cases") != std::string::npos);
  REQUIRE(text.find("each case's median") != std::string::npos);
  REQUIRE(text.find(fmt::format("{:.2f} us", *run.summary->mean_latency_ms * 1000)) != std::string::npos);
  REQUIRE(text.find(fmt::format("mean score: {:.3f}", *run.summary->mean_score)) != std::string::npos);
  REQUIRE(text.find("NVIDIA H200 (sm_90, 132 SMs); SOL spec: H200_SXM") != std::string::npos);

  run.summary.reset();  // a partial run: summarized on the spot
  const std::string partial = test::capture_output([&](std::FILE* out) { print_summary(out, run); });
  REQUIRE(partial.find("passed 2, failed 3, skipped 1 of 6 cases") != std::string::npos);
}

TEST_CASE("progress lines are rewritten in place on a terminal only", "[report][table]") {
  const RunRecord run = test::make_seeded_run(123);
  const CaseResult& passed = run.cases.at(0);
  const CaseResult& crashed = run.cases.at(2);
  const std::string plain = test::capture_output([&](std::FILE* out) { print_progress(out, passed, 1, 6, false); });
  REQUIRE(plain.find('\r') == std::string::npos);
  REQUIRE(plain.back() == '\n');
  REQUIRE(plain.find("[1/6] flash_sm90 #0 " + passed.uuid.substr(0, 8)) == 0);
  REQUIRE(plain.find(fmt::format("PASSED {:.2f} us", passed.timing->stats.median * 1000)) != std::string::npos);
  const std::string custom = test::capture_output([&](std::FILE* out) { print_progress(out, run.cases.at(4), 5, 6, false); });
  REQUIRE(custom.find("[5/6] naive custom " + describe(run.cases.at(4).shape) + " PASSED") == 0);

  const std::string live = test::capture_output([&](std::FILE* out) { print_progress(out, passed, 1, 6, true); });
  REQUIRE(live.front() == '\r');
  REQUIRE(live.back() != '\n');
  const std::string failure = test::capture_output([&](std::FILE* out) { print_progress(out, crashed, 3, 6, true); });
  REQUIRE(failure.back() == '\n');  // failures stay on screen
  REQUIRE(failure.find("RUNTIME_ERROR") != std::string::npos);
  REQUIRE(failure.find(" us") == std::string::npos);  // not timed: no latency
  const std::string last = test::capture_output([&](std::FILE* out) { print_progress(out, passed, 6, 6, true); });
  REQUIRE(last.back() == '\n');
}

}  // namespace
}  // namespace vlb
