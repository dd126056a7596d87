#pragma once
// The live line of the running case, on a terminal: which (solution, case), its stage (round r/3, timed call n/60,
// judging) and the seconds spent, redrawn at most ten times a second. Silent when the output is not a terminal: the
// finished cases' plain lines are all it gets then.
#include <chrono>
#include <cstdio>
#include <string>

#include "harness/report/table.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/judge/case_progress.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

class LiveProgress {
 public:
  LiveProgress(std::FILE* out, const RunPlan& plan);
  bool on_terminal() const { return enabled_; }
  // Shows the case as started and returns its reporter, for the judge's session (nullptr when silent). `position` is 1-based among `total` (solution, case) pairs.
  CallProgress start_case(const std::string& solution, const Case& test_case, int position, int total);

 private:
  void show(int calls_done, bool force);

  std::FILE* out_;
  bool enabled_;
  const RunPlan& plan_;
  CallSchedule schedule_;
  RunningCase running_;
  std::chrono::steady_clock::time_point started_, last_drawn_;
};

}  // namespace vlb
