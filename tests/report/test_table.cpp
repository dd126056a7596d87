// The printers: the case table, the summary and the progress lines (compare_runs: test_compare.cpp).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "harness/report/table.hpp"
#include "report/support_capture.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

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

  // On a terminal: the live line is erased, and the finished row stays (a table builds up above the live line).
  const std::string finished = test::capture_output([&](std::FILE* out) { print_progress(out, passed, 1, 6, true); });
  REQUIRE(finished == "\r\x1b[K" + plain);
  const std::string failure = test::capture_output([&](std::FILE* out) { print_progress(out, crashed, 3, 6, true); });
  REQUIRE(failure.back() == '\n');
  REQUIRE(failure.find("RUNTIME_ERROR") != std::string::npos);
  REQUIRE(failure.find(" us") == std::string::npos);  // not timed: no latency
}

TEST_CASE("the live line names the running case, its stage and the time spent, and is rewritten in place",
          "[report][table]") {
  const RunningCase running{3, 16, "template", "#2 89ec0f7e", "timed call 17/60", 3.21};
  const std::string line = test::capture_output([&](std::FILE* out) { print_running_case(out, running); });
  REQUIRE(line == "\r[3/16] template #2 89ec0f7e: timed call 17/60, 3.2 s\x1b[K");
}

}  // namespace
}  // namespace vlb
