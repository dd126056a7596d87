#pragma once
// Human-readable views of results (fmt): the per-case table, the summary and progress lines (compare: compare.hpp).
#include <cstdio>
#include <string>

#include "harness/report/results.hpp"

namespace vlb {

void print_case_table(std::FILE* out, const RunRecord& run);
void print_summary(std::FILE* out, const RunRecord& run);
// One line per finished case while the run goes (on a terminal: in place of the live line, which follows it again).
void print_progress(std::FILE* out, const CaseResult& result, int done, int total, bool is_terminal);

// The live line of the running case, for a terminal only (rewritten in place, no newline):
// "[3/16] template #2 89ec0f7e: timed call 17/60, 3.2 s".
struct RunningCase {
  int position = 0, total = 0;  // 1-based position of the case among all (solution, case) pairs
  std::string solution, case_label, stage;
  double elapsed_s = 0;
};
void print_running_case(std::FILE* out, const RunningCase& running);

}  // namespace vlb
