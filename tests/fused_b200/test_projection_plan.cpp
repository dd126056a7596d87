// The host-side decomposition choice of the projection GEMMs: split-K for the weight-bound small problems,
// stream-K for a thin last wave, data-parallel otherwise; and the shape checks.
#include <catch2/catch.hpp>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/projection_plan.hpp"

using namespace vlb::fused_b200;

namespace {
constexpr int kH200Sms = 132;
ProjectionShape shape(std::int64_t rows, std::int64_t n, int groups = 1) { return {rows, n, 4096, groups}; }
}  // namespace

TEST_CASE("few output tiles split K across the SMs", "[fused_b200][plan]") {
  // B=2 Lq=128: 256 rows x 4096 = 2 x 32 = 64 tiles on 132 SMs -> 2 splits.
  const ProjectionPlan q = plan_projection(shape(256, 4096), kH200Sms);
  CHECK(q.output_tiles == 64);
  CHECK(q.k_tiles == 64);
  CHECK(q.decomposition == Decomposition::kSplitK);
  CHECK(q.splits == 2);
  // K and V of B=2 Lv=196 (392 rows): 4 x 8 x 2 groups = 64 tiles -> 2 splits.
  const ProjectionPlan kv = plan_projection(shape(392, 1024, 2), kH200Sms);
  CHECK(kv.output_tiles == 64);
  CHECK(kv.splits == 2);
  // One tile: splits bounded by 8 and by K depth.
  const ProjectionPlan tiny = plan_projection(shape(37, 128), kH200Sms);
  CHECK(tiny.decomposition == Decomposition::kSplitK);
  CHECK(tiny.splits == 8);
  CHECK(tiny.k_tiles / tiny.splits >= 8);
}

TEST_CASE("a thin last wave uses stream-K, other waves stay data-parallel on ping-pong", "[fused_b200][plan]") {
  // 512 rows x 4096: 128 tiles, one partial wave: data-parallel (measured faster than stream-K there).
  const ProjectionPlan one_wave = plan_projection(shape(512, 4096), kH200Sms);
  CHECK(one_wave.decomposition == Decomposition::kDataParallel);
  CHECK(one_wave.schedule == MainloopSchedule::kPingpong);
  // 1024 rows: 256 tiles = 1.94 waves (tail 0.94): data-parallel.
  CHECK(plan_projection(shape(1024, 4096), kH200Sms).decomposition == Decomposition::kDataParallel);
  // 1082 rows (B=2 Lq=541): 9 x 32 = 288 tiles = 2.18 waves: stream-K, on the cooperative kernel.
  const ProjectionPlan thin_tail = plan_projection(shape(1082, 4096), kH200Sms);
  CHECK(thin_tail.decomposition == Decomposition::kStreamK);
  CHECK(thin_tail.schedule == MainloopSchedule::kCooperative);
  // K/V (two groups) stays cooperative when data-parallel: measured faster than ping-pong there.
  const ProjectionPlan kv_large = plan_projection(shape(12544, 1024, 2), kH200Sms);
  CHECK(kv_large.decomposition == Decomposition::kDataParallel);
  CHECK(kv_large.schedule == MainloopSchedule::kCooperative);
  // 2164 rows (B=4 Lq=541): 544 tiles = 4.12 waves: stream-K.
  CHECK(plan_projection(shape(2164, 4096), kH200Sms).decomposition == Decomposition::kStreamK);
  // 8192 rows: 2048 tiles = 15.5 waves: data-parallel (the tail is amortised).
  const ProjectionPlan big = plan_projection(shape(8192, 4096), kH200Sms);
  CHECK(big.decomposition == Decomposition::kDataParallel);
  CHECK(big.splits == 1);
  // Split-K plans run on the cooperative kernel.
  CHECK(plan_projection(shape(256, 4096), kH200Sms).schedule == MainloopSchedule::kCooperative);
}

TEST_CASE("a ping-pong plan must be data-parallel", "[fused_b200][plan]") {
  ProjectionPlan plan = plan_projection(shape(256, 4096), kH200Sms);
  CHECK_NOTHROW(check_projection_plan(plan));
  plan.schedule = MainloopSchedule::kPingpong;
  CHECK_THROWS_AS(check_projection_plan(plan), vlb::UsageError);
  plan.decomposition = Decomposition::kDataParallel;
  plan.splits = 1;
  CHECK_NOTHROW(check_projection_plan(plan));
  CHECK(schedule_name(MainloopSchedule::kPingpong) == "pingpong");
}

TEST_CASE("shapes outside the tiling are refused with a reason", "[fused_b200][plan]") {
  CHECK_THROWS_AS(plan_projection(shape(0, 4096), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4000), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection({256, 4096, 4000, 1}, kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4096, 3), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4096), 0), vlb::UsageError);
  CHECK(decomposition_name(Decomposition::kStreamK) == "stream-k");
}
