#include "harness/judge/live_progress.hpp"

#include <unistd.h>

namespace vlb {

namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

// "round 2/3" -> "round": a new kind of stage is always drawn, however soon after the last line.
std::string stage_kind(const std::string& stage) { return stage.substr(0, stage.find_first_of(" 0123456789")); }

}  // namespace

LiveProgress::LiveProgress(std::FILE* out, const RunPlan& plan)
    : out_(out), enabled_(out != nullptr && isatty(fileno(out)) != 0), plan_(plan), schedule_(plan) {}

CallProgress LiveProgress::start_case(const std::string& solution, const Case& test_case, int position, int total) {
  if (!enabled_) return nullptr;
  running_ = RunningCase{position, total, solution, test_case.label(), "", 0.0};
  started_ = std::chrono::steady_clock::now();
  show(0, true);
  return [this](int calls_done) { show(calls_done, false); };
}

void LiveProgress::show(int calls_done, bool force) {
  const auto now = std::chrono::steady_clock::now();
  std::string stage = describe_progress(calls_done, schedule_, plan_.timing, plan_.time_cases);
  const bool new_kind = stage_kind(stage) != stage_kind(running_.stage);
  if (!force && !new_kind && now - last_drawn_ < kRedrawInterval) return;
  last_drawn_ = now;
  running_.stage = std::move(stage);
  running_.elapsed_s = std::chrono::duration<double>(now - started_).count();
  print_running_case(out_, running_);
}

}  // namespace vlb
