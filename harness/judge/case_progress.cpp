#include "harness/judge/case_progress.hpp"

#include <fmt/format.h>

namespace vlb {

std::string describe_progress(int calls_done, const CallSchedule& schedule, const TimingSettings& timing,
                              bool time_cases) {
  if (calls_done >= schedule.max_calls()) return "judging";
  if (calls_done < schedule.rounds()) return fmt::format("round {}/{}", calls_done + 1, schedule.rounds());
  if (!time_cases) return "judging";
  const int timing_call = calls_done - schedule.first_timing_call() + 1;
  if (timing.adaptive) return fmt::format("timed call {}", timing_call);
  const int timing_calls = timing.warmup_iterations + timing.timed_iterations;
  return fmt::format("timed call {}/{}", timing_call, timing_calls);
}

}  // namespace vlb
