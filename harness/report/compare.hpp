#pragma once
// Comparing two runs case by case (`vlbench compare A.json B.json`): the ratio of medians and a verdict that needs
// both a significant difference in the raw samples (Mann-Whitney U test) and a change beyond a threshold, the way
// nvbench's compare script gates CI. docs/results-schema.md, "Comparing runs", states the rule.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "harness/report/results.hpp"

namespace vlb {

inline constexpr double kDefaultCompareThreshold = 0.05;  // a change of 5% of A's median
inline constexpr double kCompareSignificance = 0.01;      // the test's p-value must be below this

struct ComparisonRow {
  std::string solution, uuid;
  int case_index = -1;
  double latency_a_ms = 0, latency_b_ms = 0;  // medians
  double ratio = 0;                           // b / a
  double p_value = 1;                         // Mann-Whitney U on the two runs' timing samples
  std::size_t samples_a = 0, samples_b = 0;
  std::string verdict;  // "faster", "slower", "same" (B relative to A); "failed": timed in A, a failure in B
  std::string status_b;  // B's status where the verdict is "failed" (latency_b_ms, ratio and p are then NaN)
};

// threshold: the relative change of the median below which B is "same" whatever the test says (>= 0).
std::vector<ComparisonRow> compare_runs(const RunRecord& a, const RunRecord& b,
                                        double threshold = kDefaultCompareThreshold);
// The cases of `run` that compare can use: PASSED with a median.
std::size_t timed_case_count(const RunRecord& run);
// A regression CI gates on: a case "slower" or "failed" in B.
bool any_regression(const std::vector<ComparisonRow>& rows);
void print_comparison(std::FILE* out, const std::vector<ComparisonRow>& rows);
// {"threshold", "significance", "rows": [...], "faster", "slower", "same", "failed"}
nlohmann::json comparison_json(const std::vector<ComparisonRow>& rows, double threshold);

}  // namespace vlb
