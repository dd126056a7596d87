#pragma once
// Human-readable views of results (fmt): the per-case table, the summary, progress lines, and compare.
#include <cstdio>
#include <string>

#include "harness/report/results.hpp"

namespace vlb {

void print_case_table(std::FILE* out, const RunRecord& run);
void print_summary(std::FILE* out, const RunRecord& run);
// One line per finished case while the run goes (on a terminal: rewritten in place).
void print_progress(std::FILE* out, const CaseResult& result, int done, int total, bool is_terminal);

struct ComparisonRow {
  std::string solution, uuid;
  int case_index = -1;
  double latency_a_ms = 0, latency_b_ms = 0;
  double ratio = 0;        // b / a
  std::string verdict;     // "faster", "slower", "same" (B relative to A, by the measured noise)
};
std::vector<ComparisonRow> compare_runs(const RunRecord& a, const RunRecord& b);
void print_comparison(std::FILE* out, const std::vector<ComparisonRow>& rows);

}  // namespace vlb
