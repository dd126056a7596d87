// Every call of a case sees its own seed; the rounds keep their position patterns; the timing calls follow them.
#include <catch2/catch.hpp>

#include <set>

#include "harness/judge/call_schedule.hpp"

namespace {
vlb::RunPlan plan_with(int rounds, int warmup, int timed) {
  vlb::RunPlan plan;
  plan.seed = 500;
  plan.correctness.rounds = rounds;
  plan.timing.warmup_iterations = warmup;
  plan.timing.timed_iterations = timed;
  return plan;
}
}  // namespace

TEST_CASE("call k uses seed + k: no two calls of a case see the same inputs", "[runner][schedule]") {
  const vlb::CallSchedule schedule(plan_with(3, 10, 50));
  REQUIRE(schedule.max_calls() == 63);
  CHECK(schedule.first_timing_call() == 3);
  std::set<std::uint64_t> seeds;
  for (int call = 0; call < schedule.max_calls(); ++call) {
    CHECK(schedule.settings(call).seed == 500u + static_cast<unsigned>(call));
    seeds.insert(schedule.settings(call).seed);
  }
  CHECK(seeds.size() == 63);
  CHECK_THROWS_AS(schedule.settings(63), std::out_of_range);
  CHECK_THROWS_AS(schedule.settings(-1), std::out_of_range);
}

TEST_CASE("the last of several rounds has random positions; timing calls have round 0's", "[runner][schedule]") {
  const vlb::CallSchedule schedule(plan_with(3, 2, 5));
  using vlb::PositionPattern;
  CHECK(schedule.settings(0).positions == PositionPattern::kOfficial);
  CHECK(schedule.settings(1).positions == PositionPattern::kOfficial);
  CHECK(schedule.settings(2).positions == PositionPattern::kRandom);
  for (int call = 3; call < schedule.max_calls(); ++call) CHECK(schedule.settings(call).positions == PositionPattern::kOfficial);
  CHECK(vlb::CallSchedule(plan_with(1, 2, 5)).settings(0).positions == PositionPattern::kOfficial);

  vlb::RunPlan forced = plan_with(2, 1, 1);
  forced.correctness.forced_positions = PositionPattern::kRandom;
  const vlb::CallSchedule random_everywhere(forced);
  for (int call = 0; call < random_everywhere.max_calls(); ++call) {
    CHECK(random_everywhere.settings(call).positions == PositionPattern::kRandom);
  }
}

TEST_CASE("calls are labelled as rounds, warm-up and timed calls", "[runner][schedule]") {
  const vlb::CallSchedule schedule(plan_with(2, 3, 4));
  CHECK(schedule.label(1) == "round 1");
  CHECK(schedule.label(2) == "warm-up call 0");
  CHECK(schedule.label(4) == "warm-up call 2");
  CHECK(schedule.label(5) == "timed call 0");
  CHECK(schedule.label(8) == "timed call 3");
  CHECK(schedule.is_round(1));
  CHECK_FALSE(schedule.is_round(2));
}

TEST_CASE("without timing only the rounds are calls; adaptive timing allows its most samples", "[runner][schedule]") {
  vlb::RunPlan check_only = plan_with(4, 10, 50);
  check_only.time_cases = false;
  CHECK(vlb::CallSchedule(check_only).max_calls() == 4);
  vlb::RunPlan adaptive = plan_with(3, 10, 50);
  adaptive.timing.adaptive = vlb::AdaptiveStop{};
  CHECK(vlb::CallSchedule(adaptive).max_calls() == 3 + 10 + adaptive.timing.adaptive->max_samples);
}
