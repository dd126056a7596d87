#pragma once
// How far the running case has come, for the live progress line: the solution's side reports the number of calls it
// has finished after each call (outside every timed window); in a worker process that number goes to a small file
// in the worker's folder, which the parent reads while it waits.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "harness/judge/call_schedule.hpp"

namespace vlb {

// Called with the number of calls finished so far (CallSchedule numbering: the rounds, then the timing calls).
using CallProgress = std::function<void(int calls_done)>;

// The call under way, as a person reads it: "round 2/3", "timed call 17/60" (the warm-up calls counted), "timed call
// 17" when timing is adaptive, and "judging" once every call is done (schedule.max_calls(): the solution's side is over).
std::string describe_progress(int calls_done, const CallSchedule& schedule, const TimingSettings& timing,
                              bool time_cases);

void write_progress(const std::filesystem::path& folder, int calls_done);  // never throws: progress is a nicety
std::optional<int> read_progress(const std::filesystem::path& folder);     // nullopt before the first call ends

// A worker's CallProgress: writes the count at most once per `min_interval` (the parent polls every 50 ms at most, so
// a file per call would be thousands of writes nobody reads on a fast case), but always the first count and
// `final_calls` (every call done: the parent then shows "judging" while the reference runs).
CallProgress throttled_progress_file(std::filesystem::path folder, int final_calls,
                                     std::chrono::milliseconds min_interval = std::chrono::milliseconds(50));

}  // namespace vlb
