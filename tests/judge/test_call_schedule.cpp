// The seed rule: the rounds are reproducible from --seed and keyed by (seed, round), so nearby seeds share no call;
// the warm-up and timed calls draw their seeds from entropy when prepared; every call is labelled.
#include <catch2/catch.hpp>

#include <set>

#include "harness/judge/call_schedule.hpp"

namespace {
vlb::RunPlan plan_with(std::uint64_t seed, int rounds, int warmup, int timed) {
  vlb::RunPlan plan;
  plan.seed = seed;
  plan.correctness.rounds = rounds;
  plan.timing.warmup_iterations = warmup;
  plan.timing.timed_iterations = timed;
  return plan;
}
}  // namespace

TEST_CASE("round 0 uses --seed itself and later rounds a seed keyed by (seed, round)", "[judge][schedule]") {
  const vlb::CallSchedule schedule(plan_with(500, 3, 10, 50));
  REQUIRE(schedule.max_calls() == 63);
  CHECK(schedule.first_timing_call() == 3);
  CHECK(schedule.first_timed_call() == 13);
  CHECK(schedule.round_settings(0).seed == 500u);
  CHECK(schedule.round_settings(1).seed == vlb::round_seed(500, 1));
  CHECK(schedule.round_settings(1).seed != 501u);  // not seed + round
  // The same plan gives the same rounds: --seed makes them reproducible.
  const vlb::CallSchedule again(plan_with(500, 3, 10, 50));
  for (int round = 0; round < 3; ++round) CHECK(again.round_settings(round).seed == schedule.round_settings(round).seed);
  CHECK_THROWS_AS(schedule.round_settings(3), std::out_of_range);
  CHECK_THROWS_AS(schedule.round_settings(-1), std::out_of_range);
}

TEST_CASE("runs with nearby --seed values share no round", "[judge][schedule]") {
  std::set<std::uint64_t> seen;
  int rounds = 0;
  for (std::uint64_t seed = 1000; seed < 1064; ++seed) {
    const vlb::CallSchedule schedule(plan_with(seed, 5, 0, 1));
    for (int round = 0; round < 5; ++round, ++rounds) seen.insert(schedule.round_settings(round).seed);
  }
  CHECK(seen.size() == static_cast<std::size_t>(rounds));
}

TEST_CASE("warm-up and timed calls draw a fresh seed from entropy at each preparation", "[judge][schedule]") {
  const vlb::CallSchedule schedule(plan_with(7, 3, 10, 50));
  std::set<std::uint64_t> drawn;
  for (int i = 0; i < 200; ++i) drawn.insert(schedule.timing_settings().seed);
  CHECK(drawn.size() == 200);  // 64-bit draws: a repeat would mean no entropy
  // Nothing in the plan predicts them: another schedule of the same plan draws other seeds.
  const vlb::CallSchedule same_plan(plan_with(7, 3, 10, 50));
  CHECK(drawn.count(same_plan.timing_settings().seed) == 0);
  for (int round = 0; round < 3; ++round) CHECK(drawn.count(schedule.round_settings(round).seed) == 0);
}

TEST_CASE("the last of several rounds has random positions; timing calls have round 0's", "[judge][schedule]") {
  const vlb::CallSchedule schedule(plan_with(500, 3, 2, 5));
  using vlb::PositionPattern;
  CHECK(schedule.round_settings(0).positions == PositionPattern::kOfficial);
  CHECK(schedule.round_settings(1).positions == PositionPattern::kOfficial);
  CHECK(schedule.round_settings(2).positions == PositionPattern::kRandom);
  CHECK(schedule.timing_settings().positions == PositionPattern::kOfficial);
  CHECK(vlb::CallSchedule(plan_with(500, 1, 2, 5)).round_settings(0).positions == PositionPattern::kOfficial);

  vlb::RunPlan forced = plan_with(500, 2, 1, 1);
  forced.correctness.forced_positions = PositionPattern::kRandom;
  const vlb::CallSchedule random_everywhere(forced);
  for (int round = 0; round < 2; ++round) CHECK(random_everywhere.round_settings(round).positions == PositionPattern::kRandom);
  CHECK(random_everywhere.timing_settings().positions == PositionPattern::kRandom);
}

TEST_CASE("calls are labelled as rounds, warm-up and timed calls", "[judge][schedule]") {
  const vlb::CallSchedule schedule(plan_with(500, 2, 3, 4));
  CHECK(schedule.label(1) == "round 1");
  CHECK(schedule.label(2) == "warm-up call 0");
  CHECK(schedule.label(4) == "warm-up call 2");
  CHECK(schedule.label(5) == "timed call 0");
  CHECK(schedule.label(8) == "timed call 3");
  CHECK(schedule.is_round(1));
  CHECK_FALSE(schedule.is_round(2));
  CHECK(schedule.is_timed(5));
  CHECK_FALSE(schedule.is_timed(4));
}
