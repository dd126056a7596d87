// The progress of a running case: the stage a number of finished calls means, and the file a worker leaves it in.
#include <catch2/catch.hpp>

#include "harness/judge/case_progress.hpp"
#include "support/scratch_folder.hpp"

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

TEST_CASE("a worker's progress file reads back as the last number written", "[runner][progress]") {
  const testing::ScratchFolder folder;
  CHECK_FALSE(read_progress(folder.path()).has_value());
  write_progress(folder.path(), 7);
  CHECK(read_progress(folder.path()) == 7);
  write_progress(folder.path(), 41);
  CHECK(read_progress(folder.path()) == 41);
  folder.write("progress", "4x");
  CHECK_FALSE(read_progress(folder.path()).has_value());
  write_progress(folder.path() / "missing", 3);  // never throws
}

TEST_CASE("a worker writes its progress at most once per interval, but always the first count and the last",
          "[runner][progress]") {
  const testing::ScratchFolder folder;
  const CallProgress hourly = throttled_progress_file(folder.path(), 63, std::chrono::hours(1));
  hourly(1);
  CHECK(read_progress(folder.path()) == 1);
  for (int calls = 2; calls < 63; ++calls) hourly(calls);
  CHECK(read_progress(folder.path()) == 1);  // within the hour: nothing rewritten
  hourly(63);
  CHECK(read_progress(folder.path()) == 63);  // every call done: written at once

  const CallProgress every_call = throttled_progress_file(folder.path(), 63, std::chrono::milliseconds(0));
  for (int calls = 1; calls <= 5; ++calls) {
    every_call(calls);
    CHECK(read_progress(folder.path()) == calls);
  }
}

}  // namespace
}  // namespace vlb
