#pragma once
// The calls of one (solution, case), in order: the correctness rounds, then the warm-up and timed calls. Every call
// sees inputs no earlier call saw, and no call's inputs can be known before the judge prepares it:
// - round r uses the plan's seed for r = 0 and a seed keyed by (seed, r) for r > 0, so that --seed makes the rounds
//   reproducible and runs with nearby --seed values share no call (round 1 of --seed 5 is not round 0 of --seed 6);
// - a warm-up or timed call draws its seed from the operating system's entropy when the judge prepares it: nothing
//   sent or written before (the plan, the task, the rounds) determines it.
// Every seed is recorded with the call's judgement: `--seed S --rounds 1` (with `--positions P` when the call's
// positions were P) reproduces the call exactly.
#include <cstdint>
#include <string>

#include "harness/inputs/generator.hpp"
#include "harness/plan/run_plan.hpp"

namespace vlb {

// Round r's seed: `seed` for r = 0, a 64-bit mix of (seed, r) otherwise.
std::uint64_t round_seed(std::uint64_t seed, int round);
// 64 bits from the operating system (getrandom); SystemError when it has none to give.
std::uint64_t entropy_seed();

class CallSchedule {
 public:
  explicit CallSchedule(const RunPlan& plan);

  int rounds() const { return rounds_; }
  int warmup_calls() const { return warmup_; }
  int first_timing_call() const { return rounds_; }
  int first_timed_call() const { return rounds_ + warmup_; }
  // Every call the case may make: the rounds, and when timed the warm-up calls and the most timed calls allowed.
  int max_calls() const { return max_calls_; }
  bool is_round(int call) const { return call < rounds_; }
  bool is_timed(int call) const { return call >= first_timed_call(); }

  // Round r's inputs: its seed; official positions, the last of several rounds random (unless the plan forces a
  // pattern).
  InputSettings round_settings(int round) const;
  // A warm-up or timed call's inputs: a fresh seed from entropy at every call of this; round 0's position pattern.
  InputSettings timing_settings() const;
  // "round 1", "warm-up call 3", "timed call 17"
  std::string label(int call) const;

 private:
  std::uint64_t seed_;
  int rounds_;
  int warmup_;
  int max_calls_;
  std::optional<PositionPattern> forced_positions_;
};

}  // namespace vlb
