// Comparing two runs case by case: the ratio of medians, and a verdict that calls neither noise nor a negligible change a
// speed-up or a slow-down.
#include "harness/report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "harness/core/errors.hpp"
#include "harness/core/printable_text.hpp"
#include "harness/report/rank_test.hpp"
#include "harness/report/text_format.hpp"

namespace vlb {

namespace {

// The rule (docs/results-schema.md, "Comparing runs"): "faster" or "slower" only when the samples differ
// significantly (p < kCompareSignificance) and the median moved by more than the threshold; "same" otherwise.
std::string verdict_for(double ratio, double p_value, double threshold) {
  if (!(p_value < kCompareSignificance)) return "same";
  if (ratio > 1.0 + threshold) return "slower";
  if (ratio < 1.0 - threshold) return "faster";
  return "same";
}

// A suite case is known by its uuid; a custom case (no uuid) by its shape.
using CaseKey = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t>;

CaseKey key_of(const CaseResult& result, bool with_solution) {
  const std::string solution = with_solution ? result.solution : std::string();
  if (!result.uuid.empty()) return {solution, result.uuid, 0, 0, 0};
  return {solution, std::string(), result.shape.batch, result.shape.lang_seq, result.shape.vision_seq};
}

std::set<std::string> solutions_of(const RunRecord& run) {
  std::set<std::string> names;
  for (const CaseResult& result : run.cases) names.insert(result.solution);
  return names;
}

// PASSED with a median: a REWARD_HACK case keeps its samples in the file (some may be 0 ms) but is no latency.
bool is_timed(const CaseResult& result) {
  return result.status == CaseStatus::kPassed && report_detail::median_latency_ms(result).has_value();
}

// A case A timed that B ran and failed (INCORRECT_NUMERICAL, RUNTIME_ERROR, TIMEOUT, ...): a regression, not a gap.
ComparisonRow failed_row(const CaseResult& result_a, const CaseResult& result_b, const std::string& solution) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  ComparisonRow row;
  row.solution = solution;
  row.uuid = result_b.uuid;
  row.case_index = result_b.case_index;
  row.latency_a_ms = result_a.timing->stats.median;
  row.latency_b_ms = row.ratio = row.p_value = kNone;
  row.samples_a = result_a.timing->samples_ms.size();
  row.verdict = "failed";
  row.status_b = std::string(status_name(result_b.status));
  return row;
}

}  // namespace

std::vector<ComparisonRow> compare_runs(const RunRecord& a, const RunRecord& b, double threshold) {
  if (!(std::isfinite(threshold) && threshold >= 0.0)) {
    throw UsageError(fmt::format("the compare threshold must be a finite fraction >= 0 (0.05 is 5%), got {}", threshold));
  }
  // Two runs of one solution each, under different names, compare that solution against the other one.
  const std::set<std::string> solutions_a = solutions_of(a), solutions_b = solutions_of(b);
  const bool one_each = solutions_a.size() == 1 && solutions_b.size() == 1;
  const bool match_solution = !(one_each && solutions_a != solutions_b);

  std::map<CaseKey, const CaseResult*> timed_in_a;
  for (const CaseResult& result : a.cases) {
    if (is_timed(result)) timed_in_a.emplace(key_of(result, match_solution), &result);
  }
  std::vector<ComparisonRow> rows;
  for (const CaseResult& result_b : b.cases) {
    const auto found = timed_in_a.find(key_of(result_b, match_solution));
    if (found == timed_in_a.end()) continue;
    const CaseResult& result_a = *found->second;
    const std::string solution = match_solution ? result_b.solution : result_a.solution + " vs " + result_b.solution;
    if (!is_timed(result_b)) {
      if (is_failure(result_b.status)) rows.push_back(failed_row(result_a, result_b, solution));
      continue;  // SKIPPED, or checked without timing (--check-only): nothing to compare
    }
    ComparisonRow row;
    row.solution = solution;
    row.uuid = result_b.uuid;
    row.case_index = result_b.case_index;
    row.latency_a_ms = result_a.timing->stats.median;
    row.latency_b_ms = result_b.timing->stats.median;
    row.ratio = row.latency_b_ms / row.latency_a_ms;  // a PASSED median is positive: the reader checks it
    row.samples_a = result_a.timing->samples_ms.size();
    row.samples_b = result_b.timing->samples_ms.size();
    row.p_value = mann_whitney(result_a.timing->samples_ms, result_b.timing->samples_ms).p_value;
    row.verdict = verdict_for(row.ratio, row.p_value, threshold);
    rows.push_back(std::move(row));
  }
  return rows;
}

void print_comparison(std::FILE* out, const std::vector<ComparisonRow>& rows) {
  if (rows.empty()) {
    fmt::print(out, "no case was timed in both runs\n");
    return;
  }
  constexpr const char* kRowFormat = "{:<24} {:>3} {:<8} {:>10} {:>10} {:>7} {:>8} {:<7}\n";
  fmt::print(out, kRowFormat, "solution", "#", "uuid", "A us", "B us", "B/A", "p", "verdict");
  int faster = 0, slower = 0, same = 0, failed = 0;
  double log_ratio_sum = 0;
  int finite_ratios = 0;
  for (const ComparisonRow& row : rows) {
    const bool lost = row.verdict == "failed";
    // Names come from the files: printed safe (no terminal control sequences).
    fmt::print(out, kRowFormat, printable_text(row.solution), report_detail::case_number(row.case_index),
               printable_text(report_detail::short_uuid(row.uuid)), fmt::format("{:.2f}", row.latency_a_ms * 1000.0),
               lost ? "-" : fmt::format("{:.2f}", row.latency_b_ms * 1000.0),
               lost ? "-" : fmt::format("{:.3f}", row.ratio), lost ? "-" : fmt::format("{:.2g}", row.p_value),
               lost ? "failed: " + row.status_b : row.verdict);
    failed += lost;
    faster += row.verdict == "faster";
    slower += row.verdict == "slower";
    same += row.verdict == "same";
    if (std::isfinite(row.ratio) && row.ratio > 0) {
      log_ratio_sum += std::log(row.ratio);
      ++finite_ratios;
    }
  }
  fmt::print(out, "B is faster on {}, slower on {}, the same on {}{} of {} cases", faster, slower, same,
             failed > 0 ? fmt::format(", failed on {}", failed) : std::string(), rows.size());
  if (finite_ratios > 0) fmt::print(out, "; geometric mean B/A {:.3f}", std::exp(log_ratio_sum / finite_ratios));
  fmt::print(out, "\n");
}

std::size_t timed_case_count(const RunRecord& run) {
  return static_cast<std::size_t>(std::count_if(run.cases.begin(), run.cases.end(), is_timed));
}

bool any_regression(const std::vector<ComparisonRow>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [](const ComparisonRow& row) { return row.verdict == "slower" || row.verdict == "failed"; });
}

nlohmann::json comparison_json(const std::vector<ComparisonRow>& rows, double threshold) {
  nlohmann::json document = {{"threshold", threshold}, {"significance", kCompareSignificance},
                             {"rows", nlohmann::json::array()}};
  std::map<std::string, int> counts = {{"faster", 0}, {"slower", 0}, {"same", 0}, {"failed", 0}};
  // JSON has no NaN: what B did not measure is null.
  auto number = [](double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(); };
  for (const ComparisonRow& row : rows) {
    nlohmann::json entry = {{"solution", row.solution}, {"uuid", row.uuid}, {"case_index", row.case_index},
                            {"median_a_ms", row.latency_a_ms}, {"median_b_ms", number(row.latency_b_ms)},
                            {"ratio", number(row.ratio)}, {"p_value", number(row.p_value)},
                            {"samples_a", row.samples_a}, {"samples_b", row.samples_b}, {"verdict", row.verdict}};
    if (row.verdict == "failed") entry["status_b"] = row.status_b;
    document["rows"].push_back(std::move(entry));
    ++counts[row.verdict];
  }
  for (const auto& [verdict, count] : counts) document[verdict] = count;
  return document;
}

}  // namespace vlb
