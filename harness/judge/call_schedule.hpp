#pragma once
// The calls of one (solution, case), in order: the correctness rounds, then the warm-up and timed calls. Every call
// sees inputs no earlier call saw: call k uses seed + k (round r: seed + r; timing call i: seed + rounds + i), so the
// reference for any call is recomputed from the plan alone, wherever it runs.
#include <string>

#include "harness/inputs/generator.hpp"
#include "harness/plan/run_plan.hpp"

namespace vlb {

class CallSchedule {
 public:
  explicit CallSchedule(const RunPlan& plan);

  int rounds() const { return rounds_; }
  int warmup_calls() const { return warmup_; }
  int first_timing_call() const { return rounds_; }
  // Every call the case may make: the rounds, and when timed the warm-up calls and the most timed calls allowed.
  int max_calls() const { return max_calls_; }
  bool is_round(int call) const { return call < rounds_; }

  // Round r: official positions, the last of several rounds random (unless the plan forces a pattern); timing calls
  // use round 0's pattern.
  InputSettings settings(int call) const;
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
