#pragma once
// How far the running case has come, for the live progress line: the judge reports the number of calls it has
// finished after each call (outside every timed window).
#include <functional>
#include <string>

#include "harness/judge/call_schedule.hpp"

namespace vlb {

// Called with the number of calls finished so far (CallSchedule numbering: the rounds, then the timing calls).
using CallProgress = std::function<void(int calls_done)>;

// The call under way, as a person reads it: "round 2/3", "timed call 17/60" (the warm-up calls counted), "timed call
// 17" when timing is adaptive, and "judging" once every call is done (schedule.max_calls(): the solution's side is over).
std::string describe_progress(int calls_done, const CallSchedule& schedule, const TimingSettings& timing,
                              bool time_cases);

}  // namespace vlb
