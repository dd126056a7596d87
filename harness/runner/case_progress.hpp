#pragma once
// How far the running case has come, for the live progress line: the solution's side reports the number of calls it
// has finished after each call (outside every timed window); in a worker process that number goes to a small file
// in the worker's folder, which the parent reads while it waits.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "harness/runner/call_schedule.hpp"

namespace vlb {

// Called with the number of calls finished so far (CallSchedule numbering: the rounds, then the timing calls).
using CallProgress = std::function<void(int calls_done)>;

// The call under way, as a person reads it: "round 2/3", "timed call 17/60" (the warm-up calls counted), "timed call
// 17" when timing is adaptive, and "judging" once every call is done (schedule.max_calls(): the solution's side is over).
std::string describe_progress(int calls_done, const CallSchedule& schedule, const TimingSettings& timing,
                              bool time_cases);

void write_progress(const std::filesystem::path& folder, int calls_done);  // never throws: progress is a nicety
std::optional<int> read_progress(const std::filesystem::path& folder);     // nullopt before the first call ends

}  // namespace vlb
