// docs/results-schema.md's example is a valid document: the documentation cannot drift from the code unnoticed.
#include <catch2/catch.hpp>

#include <string>

#include "harness/report/results_json.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

nlohmann::json documented_example() {
  const std::string text = testing::read_text(std::filesystem::path(VLBENCH_SOURCE_DIR) / "docs" / "results-schema.md");
  const std::string opening = "## A complete example";
  const std::size_t section = text.find(opening);
  REQUIRE(section != std::string::npos);
  const std::size_t start = text.find("```json\n", section);
  REQUIRE(start != std::string::npos);
  const std::size_t body = start + std::string("```json\n").size();
  const std::size_t end = text.find("\n```", body);
  REQUIRE(end != std::string::npos);
  return nlohmann::json::parse(text.substr(body, end - body));
}

TEST_CASE("the documented example validates and converts without loss", "[report][docs]") {
  const nlohmann::json document = documented_example();
  REQUIRE_NOTHROW(validate_results_json(document));
  const RunRecord run = run_record_from_json(document);
  REQUIRE(run.cases.size() == 3);
  REQUIRE(run.cases.at(0).status == CaseStatus::kPassed);
  REQUIRE(run.cases.at(1).status == CaseStatus::kRuntimeError);
  REQUIRE(run.cases.at(2).status == CaseStatus::kSkipped);
  REQUIRE(run.cases.at(2).case_index == -1);
  REQUIRE(to_json(run) == document);
  // Its summary is what summarize() computes from its cases.
  const SummaryRecord summary = summarize(run.cases, run.summary->wall_time_s);
  REQUIRE(summary.passed == run.summary->passed);
  REQUIRE(summary.mean_latency_ms == run.summary->mean_latency_ms);
  REQUIRE(summary.mean_score == run.summary->mean_score);
}

}  // namespace
}  // namespace vlb
