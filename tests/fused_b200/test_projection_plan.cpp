// The host-side decomposition choice of the projection GEMMs: the 128x256 kernel where N allows it, split-K for the
// weight-bound small problems, stream-K for a thin last wave, data-parallel otherwise; and the shape and plan checks.
#include <catch2/catch.hpp>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/projection_plan.hpp"

using namespace vlb::fused_b200;

namespace {
constexpr int kH200Sms = 132;
ProjectionShape shape(std::int64_t rows, std::int64_t n, int groups = 1) { return {rows, n, 4096, groups}; }
}  // namespace

TEST_CASE("the 128x256 kernel runs every N that is a multiple of 256, 128x128 the rest", "[fused_b200][plan]") {
  CHECK(plan_projection(shape(4096, 4096), kH200Sms).kernel == ProjectionKernel::kCooperative128x256);
  CHECK(plan_projection(shape(4096, 1024, 2), kH200Sms).kernel == ProjectionKernel::kCooperative128x256);
  CHECK(plan_projection(shape(4096, 384), kH200Sms).kernel == ProjectionKernel::kCooperative128x128);
  CHECK(kernel_tile(ProjectionKernel::kCooperative128x256).block_n == 256);
  CHECK(kernel_tile(ProjectionKernel::kCooperative128x256).cluster_m == 2);
  CHECK(kernel_name(ProjectionKernel::kPingpong128x128) == "pingpong-128x128");
}

TEST_CASE("few output tiles split K across the SMs", "[fused_b200][plan]") {
  // B=2 Lq=128: 256 rows x 4096 = 2 x 16 tiles of 128x256 on 132 SMs -> 4 splits.
  const ProjectionPlan q = plan_projection(shape(256, 4096), kH200Sms);
  CHECK(q.output_tiles == 32);
  CHECK(q.k_tiles == 64);
  CHECK(q.decomposition == Decomposition::kSplitK);
  CHECK(q.splits == 4);
  // 512 rows: 64 tiles -> 2 splits.
  CHECK(plan_projection(shape(512, 4096), kH200Sms).splits == 2);
  // K and V of B=2 Lv=196 (392 rows): 4 x 4 x 2 groups = 32 tiles -> 4 splits.
  const ProjectionPlan kv = plan_projection(shape(392, 1024, 2), kH200Sms);
  CHECK(kv.output_tiles == 32);
  CHECK(kv.splits == 4);
  // One tile: splits bounded by 8 and by K depth.
  const ProjectionPlan tiny = plan_projection(shape(37, 128), kH200Sms);
  CHECK(tiny.decomposition == Decomposition::kSplitK);
  CHECK(tiny.splits == 8);
  CHECK(tiny.k_tiles / tiny.splits >= 8);
}

TEST_CASE("a thin last wave uses stream-K, other waves stay data-parallel", "[fused_b200][plan]") {
  // 1024 rows x 4096: 128 tiles, one partial wave: data-parallel.
  const ProjectionPlan one_wave = plan_projection(shape(1024, 4096), kH200Sms);
  CHECK(one_wave.decomposition == Decomposition::kDataParallel);
  CHECK(one_wave.output_tiles == 128);
  // 2048 rows: 256 tiles = 1.94 waves (tail 0.94): data-parallel.
  CHECK(plan_projection(shape(2048, 4096), kH200Sms).decomposition == Decomposition::kDataParallel);
  // 2164 rows (B=4 Lq=541): 17 x 16 = 272 tiles = 2.06 waves: stream-K.
  CHECK(plan_projection(shape(2164, 4096), kH200Sms).decomposition == Decomposition::kStreamK);
  // K/V of 12544 rows: 98 x 4 x 2 = 784 tiles = 5.94 waves: data-parallel.
  const ProjectionPlan kv_large = plan_projection(shape(12544, 1024, 2), kH200Sms);
  CHECK(kv_large.output_tiles == 784);
  CHECK(kv_large.decomposition == Decomposition::kDataParallel);
  // 16384 rows: 2048 tiles = 15.5 waves: data-parallel (the tail is amortised).
  const ProjectionPlan big = plan_projection(shape(16384, 4096), kH200Sms);
  CHECK(big.decomposition == Decomposition::kDataParallel);
  CHECK(big.splits == 1);
}

TEST_CASE("a plan its kernel cannot run is refused with a reason", "[fused_b200][plan]") {
  const ProjectionShape q = shape(256, 4096);
  CHECK_NOTHROW(check_projection_plan(plan_projection(q, kH200Sms), q));
  CHECK_THROWS_AS(check_projection_plan(make_plan(q, ProjectionKernel::kPingpong128x128, Decomposition::kSplitK, 2), q),
                  vlb::UsageError);
  CHECK_NOTHROW(check_projection_plan(make_plan(q, ProjectionKernel::kPingpong128x128, Decomposition::kDataParallel), q));
  CHECK_THROWS_AS(
      check_projection_plan(make_plan(q, ProjectionKernel::kCooperative128x256, Decomposition::kDataParallel, 2), q),
      vlb::UsageError);
  const ProjectionShape narrow = shape(256, 384);
  CHECK_THROWS_AS(
      check_projection_plan(make_plan(narrow, ProjectionKernel::kCooperative128x256, Decomposition::kDataParallel),
                            narrow),
      vlb::UsageError);
  CHECK(make_plan(narrow, ProjectionKernel::kCooperative128x128, Decomposition::kDataParallel).output_tiles == 6);
}

TEST_CASE("shapes outside the tiling are refused with a reason", "[fused_b200][plan]") {
  CHECK_THROWS_AS(plan_projection(shape(0, 4096), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4000), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection({256, 4096, 4000, 1}, kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4096, 3), kH200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_projection(shape(256, 4096), 0), vlb::UsageError);
  CHECK(decomposition_name(Decomposition::kStreamK) == "stream-k");
}
