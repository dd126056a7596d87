#include "harness/judge/call_schedule.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace vlb {

CallSchedule::CallSchedule(const RunPlan& plan)
    : seed_(plan.seed),
      rounds_(plan.correctness.rounds),
      warmup_(plan.timing.warmup_iterations),
      forced_positions_(plan.correctness.forced_positions) {
  const int timed = plan.timing.adaptive ? plan.timing.adaptive->max_samples : plan.timing.timed_iterations;
  max_calls_ = rounds_ + (plan.time_cases ? warmup_ + timed : 0);
}

InputSettings CallSchedule::settings(int call) const {
  if (call < 0 || call >= max_calls_) {
    throw std::out_of_range(fmt::format("call {} outside the case's calls 0..{}", call, max_calls_ - 1));
  }
  InputSettings settings;
  settings.seed = seed_ + static_cast<std::uint64_t>(call);
  if (forced_positions_) {
    settings.positions = *forced_positions_;
  } else {
    const bool random_round = rounds_ > 1 && call == rounds_ - 1;
    settings.positions = random_round ? PositionPattern::kRandom : PositionPattern::kOfficial;
  }
  return settings;
}

std::string CallSchedule::label(int call) const {
  if (call < rounds_) return fmt::format("round {}", call);
  const int timing_call = call - rounds_;
  if (timing_call < warmup_) return fmt::format("warm-up call {}", timing_call);
  return fmt::format("timed call {}", timing_call - warmup_);
}

}  // namespace vlb
