// The progress of a running case: the stage a number of finished calls means.
#include <catch2/catch.hpp>

#include "harness/judge/case_progress.hpp"

namespace vlb {
namespace {

TEST_CASE("finished calls read as the round, the timed call or the judging under way", "[runner][progress]") {
  RunPlan plan;  // 3 rounds, 10 warm-up and 50 timed calls
  const CallSchedule schedule(plan);
  const auto stage = [&](int calls_done) { return describe_progress(calls_done, schedule, plan.timing, true); };
  CHECK(stage(0) == "round 1/3");
  CHECK(stage(2) == "round 3/3");
  CHECK(stage(3) == "timed call 1/60");
  CHECK(stage(62) == "timed call 60/60");
  CHECK(stage(63) == "judging");
  CHECK(describe_progress(3, schedule, plan.timing, false) == "judging");  // --check-only

  plan.timing.adaptive = AdaptiveStop{};
  CHECK(describe_progress(20, CallSchedule(plan), plan.timing, true) == "timed call 18");
}

}  // namespace
}  // namespace vlb
