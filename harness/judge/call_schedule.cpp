#include "harness/judge/call_schedule.hpp"

#include <fmt/format.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "harness/core/errors.hpp"

namespace vlb {
namespace {

// splitmix64's finalizer.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t round_seed(std::uint64_t seed, int round) {
  if (round == 0) return seed;
  return mix64(mix64(seed) ^ mix64(0x726f756e64000000ull + static_cast<std::uint64_t>(round)));  // "round"
}

std::uint64_t entropy_seed() {
  std::uint64_t seed = 0;
  std::size_t got = 0;
  while (got < sizeof(seed)) {
    const ssize_t read = getrandom(reinterpret_cast<char*>(&seed) + got, sizeof(seed) - got, 0);
    if (read < 0 && errno == EINTR) continue;
    if (read <= 0) throw SystemError(fmt::format("no entropy from the operating system: {}", std::strerror(errno)));
    got += static_cast<std::size_t>(read);
  }
  return seed;
}

CallSchedule::CallSchedule(const RunPlan& plan)
    : seed_(plan.seed),
      rounds_(plan.correctness.rounds),
      warmup_(plan.timing.warmup_iterations),
      forced_positions_(plan.correctness.forced_positions) {
  const int timed = plan.timing.adaptive ? plan.timing.adaptive->max_samples : plan.timing.timed_iterations;
  max_calls_ = rounds_ + (plan.time_cases ? warmup_ + timed : 0);
}

InputSettings CallSchedule::round_settings(int round) const {
  if (round < 0 || round >= rounds_) {
    throw std::out_of_range(fmt::format("round {} outside the case's rounds 0..{}", round, rounds_ - 1));
  }
  InputSettings settings;
  settings.seed = round_seed(seed_, round);
  if (forced_positions_) {
    settings.positions = *forced_positions_;
  } else {
    const bool random_round = rounds_ > 1 && round == rounds_ - 1;
    settings.positions = random_round ? PositionPattern::kRandom : PositionPattern::kOfficial;
  }
  return settings;
}

InputSettings CallSchedule::timing_settings() const {
  InputSettings settings;
  settings.seed = entropy_seed();
  settings.positions = forced_positions_.value_or(PositionPattern::kOfficial);
  return settings;
}

std::string CallSchedule::label(int call) const {
  if (call < rounds_) return fmt::format("round {}", call);
  const int timing_call = call - rounds_;
  if (timing_call < warmup_) return fmt::format("warm-up call {}", timing_call);
  return fmt::format("timed call {}", timing_call - warmup_);
}

}  // namespace vlb
