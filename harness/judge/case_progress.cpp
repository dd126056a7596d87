#include "harness/judge/case_progress.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <system_error>
#include <utility>

namespace vlb {

namespace {

constexpr const char* kProgressFile = "progress";

}  // namespace

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

void write_progress(const std::filesystem::path& folder, int calls_done) {
  const std::filesystem::path file = folder / kProgressFile, temporary = folder / "progress.partial";
  {
    std::ofstream stream(temporary, std::ios::trunc);
    stream << calls_done;
    if (!stream) return;
  }
  std::error_code error;
  std::filesystem::rename(temporary, file, error);  // the reader sees the old number or the new one
}

CallProgress throttled_progress_file(std::filesystem::path folder, int final_calls,
                                     std::chrono::milliseconds min_interval) {
  using Clock = std::chrono::steady_clock;
  return [folder = std::move(folder), final_calls, min_interval, last = std::optional<Clock::time_point>()](
             int calls_done) mutable {
    const Clock::time_point now = Clock::now();
    if (last && now - *last < min_interval && calls_done != final_calls) return;
    write_progress(folder, calls_done);
    last = now;
  };
}

std::optional<int> read_progress(const std::filesystem::path& folder) {
  std::ifstream stream(folder / kProgressFile);
  std::string text;
  if (!(stream >> text)) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace vlb
