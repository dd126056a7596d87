// Schema validation of a results document: types and keys by the typed reader, then the cross-field rules.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_json_detail.hpp"

namespace vlb::report_detail {

namespace {

// PASSED carries no reason; every other status says why in one line.
void check_reason(CaseStatus status, const std::string& reason, const JsonNode& node) {
  if (status == CaseStatus::kPassed && !reason.empty()) node.at("reason").fail("a PASSED result has no reason");
  if (status != CaseStatus::kPassed && reason.empty()) {
    node.at("reason").fail("a " + std::string(status_name(status)) + " result needs a non-empty reason");
  }
}

void check_shape(const ProblemShape& shape, const JsonNode& node) {
  if (shape.batch <= 0) node.at("batch_size").fail("must be positive");
  if (shape.lang_seq <= 0) node.at("lang_seq_len").fail("must be positive");
  if (shape.vision_seq <= 0) node.at("vision_seq_len").fail("must be positive");
}

void check_round(const CorrectnessRound& round, const JsonNode& node) {
  if (round.positions != "official" && round.positions != "random") {
    node.at("positions").fail("expected \"official\" or \"random\", found \"" + round.positions + "\"");
  }
  if (round.stats.elements < 0) node.at("stats").at("elements").fail("must not be negative");
  if (round.stats.matched < 0 || round.stats.matched > round.stats.elements) {
    node.at("stats").at("matched").fail("must lie between 0 and elements (" + std::to_string(round.stats.elements) +
                                        ")");
  }
  check_reason(round.status, round.reason, node);
}

void check_timing(const CaseResult& result, const JsonNode& node) {
  if (!result.timing) return;
  const JsonNode timing = node.at("timing");
  if (result.status == CaseStatus::kSkipped) timing.fail("a SKIPPED case never ran, so it has no timing (null)");
  if (result.timing->samples_ms.empty()) timing.at("samples_ms").fail("a timed case has at least one sample");
  if (result.timing->stats.count != result.timing->samples_ms.size()) {
    timing.at("stats").at("count").fail("is " + std::to_string(result.timing->stats.count) + " but samples_ms holds " +
                                        std::to_string(result.timing->samples_ms.size()) + " samples");
  }
}

void check_count(int expected, const JsonNode& node, std::string_view what) {
  const int written = node.as_int();
  if (written != expected) {
    node.fail("is " + std::to_string(written) + " but the cases array holds " + std::to_string(expected) + " " +
              std::string(what));
  }
}

void check_summary(const RunRecord& run, const JsonNode& node) {
  int passed = 0, failed = 0, skipped = 0;
  for (const CaseResult& result : run.cases) {
    passed += result.status == CaseStatus::kPassed;
    failed += is_failure(result.status);
    skipped += result.status == CaseStatus::kSkipped;
  }
  check_count(static_cast<int>(run.cases.size()), node.at("cases"), "cases");
  check_count(passed, node.at("passed"), "PASSED cases");
  check_count(failed, node.at("failed"), "failed cases");
  check_count(skipped, node.at("skipped"), "SKIPPED cases");
  if (run.summary->latency_statistic.empty()) node.at("latency_statistic").fail("must name a statistic");
}

}  // namespace

void check_case_rules(const CaseResult& result, const JsonNode& node) {
  if (result.solution.empty()) node.at("solution").fail("must name a solution");
  if (result.case_index < -1) node.at("case_index").fail("must be a suite index, or -1 for a custom case");
  check_shape(result.shape, node.at("shape"));
  check_reason(result.status, result.reason, node);
  const JsonNode rounds = node.at("correctness");
  for (std::size_t i = 0; i < result.correctness.size(); ++i) check_round(result.correctness[i], rounds.at(i));
  check_timing(result, node);
}

void check_run_rules(const RunRecord& run, const JsonNode& root) {
  const JsonNode cases = root.at("cases");
  for (std::size_t i = 0; i < run.cases.size(); ++i) check_case_rules(run.cases[i], cases.at(i));
  if (run.summary) check_summary(run, root.at("summary"));
}

}  // namespace vlb::report_detail

namespace vlb {

void validate_results_json(const nlohmann::json& document) {
  const std::string source(report_detail::kUnnamedDocument);
  const report_detail::JsonNode root(document, source);
  report_detail::check_run_rules(report_detail::run_record_from_node(root), root);
}

RunRecord read_results_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read results file " + path.string() + ": " + std::strerror(errno));
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(path.string() + ": not valid JSON (" + error.what() + ")");
  }
  const std::string source = path.string();
  const report_detail::JsonNode root(document, source);
  RunRecord run = report_detail::run_record_from_node(root);
  report_detail::check_run_rules(run, root);
  return run;
}

}  // namespace vlb
