// The Blackwell projection path's host choices: which sm100 tile a shape runs on, the fp32 staging it needs, and
// which kernel set a compute capability gets.
#include <catch2/catch.hpp>

#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/projection_plan_sm100.hpp"

using namespace vlb::fused_b200;

namespace {

constexpr int kB200Sms = 148;

ProjectionShape shape(std::int64_t rows, std::int64_t out_features, int groups = 1) {
  return ProjectionShape{rows, out_features, vlb::ModelDims::kHidden, groups};
}

}  // namespace

TEST_CASE("sm100 plan: 2-SM tiles once their clusters fill every SM pair", "[fused_b200][plan][blackwell]") {
  // Q/O: 4096 columns = 32 column tiles; 256-row clusters: ceil(rows / 256) * 32 clusters of 2 SMs.
  CHECK(plan_sm100_projection(shape(256, 4096), kB200Sms) == Sm100Tile::kOneSm128x128);   // 32 clusters
  CHECK(plan_sm100_projection(shape(512, 4096), kB200Sms) == Sm100Tile::kOneSm128x128);   // 64: 128 of 148 SMs
  CHECK(plan_sm100_projection(shape(768, 4096), kB200Sms) == Sm100Tile::kTwoSm256x128);   // 96: 192 SMs' worth
  CHECK(plan_sm100_projection(shape(8192, 4096), kB200Sms) == Sm100Tile::kTwoSm256x128);
  // K and V: 1024 columns per group, 2 groups = 16 column tiles.
  CHECK(plan_sm100_projection(shape(392, 1024, 2), kB200Sms) == Sm100Tile::kOneSm128x128);  // 32 clusters
  CHECK(plan_sm100_projection(shape(1568, 1024, 2), kB200Sms) == Sm100Tile::kTwoSm256x128);  // 112 clusters
  CHECK(plan_sm100_projection(shape(25088, 1024, 2), kB200Sms) == Sm100Tile::kTwoSm256x128);
  // The boundary: exactly one cluster per SM pair.
  CHECK(plan_sm100_projection(shape(256 * 37, 256), kB200Sms) == Sm100Tile::kTwoSm256x128);      // 74 clusters
  CHECK(plan_sm100_projection(shape(256 * 36 + 1, 256), kB200Sms) == Sm100Tile::kTwoSm256x128);  // 74 clusters
  CHECK(plan_sm100_projection(shape(256 * 36, 256), kB200Sms) == Sm100Tile::kOneSm128x128);      // 72 clusters
}

TEST_CASE("sm100 plan: tiles and names", "[fused_b200][plan][blackwell]") {
  CHECK(sm100_tile_rows(Sm100Tile::kOneSm128x128) == 128);
  CHECK(sm100_tile_rows(Sm100Tile::kTwoSm256x128) == 256);
  CHECK(sm100_tile_name(Sm100Tile::kOneSm128x128) == "1sm-128x128");
  CHECK(sm100_tile_name(Sm100Tile::kTwoSm256x128) == "2sm-256x128");
}

TEST_CASE("sm100 plan: bad shapes and SM counts are usage errors", "[fused_b200][plan][blackwell]") {
  CHECK_THROWS_AS(plan_sm100_projection(shape(0, 4096), kB200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_sm100_projection(shape(256, 4000), kB200Sms), vlb::UsageError);
  CHECK_THROWS_AS(plan_sm100_projection(shape(256, 4096), 0), vlb::UsageError);
  CHECK_THROWS_AS(sm100_staging_bytes(shape(256, 4096, 3), OutputWork::kFusedEpilogue), vlb::UsageError);
}

TEST_CASE("sm100 staging: fp32 accumulators of every group, 256-byte aligned; none for plain work",
          "[fused_b200][plan][blackwell]") {
  CHECK(sm100_staging_bytes(shape(256, 4096), OutputWork::kFusedEpilogue) == 256u * 4096u * 4u);
  CHECK(sm100_staging_bytes(shape(392, 1024, 2), OutputWork::kFusedEpilogue) == 392u * 1024u * 2u * 4u);
  CHECK(sm100_staging_bytes(shape(1, 128), OutputWork::kFusedEpilogue) == 512u);  // 512 bytes: already aligned
  CHECK(sm100_staging_bytes(shape(3, 128), OutputWork::kFusedEpilogue) == 1536u);
  CHECK(sm100_staging_bytes(shape(1, 128, 2), OutputWork::kFusedEpilogue) == 1024u);
  CHECK(sm100_staging_bytes(shape(7, 4096), OutputWork::kPlain) == 0u);
}

TEST_CASE("kernel sets by compute capability: only 9.0 and 10.0 can have kernels", "[fused_b200][blackwell]") {
  for (const auto& [major, minor] : {std::pair{8, 0}, std::pair{8, 9}, std::pair{9, 1}, std::pair{10, 1},
                                     std::pair{10, 3}, std::pair{11, 0}, std::pair{12, 0}, std::pair{12, 1}}) {
    INFO(major << "." << minor);
    CHECK(kernel_architecture_for(major, minor) == KernelArchitecture::kNone);
  }
  // Which of the two the build holds depends on VLBENCH_GPU_TARGETS; never the other architecture's set.
  CHECK(kernel_architecture_for(9, 0) != KernelArchitecture::kSm100);
  CHECK(kernel_architecture_for(10, 0) != KernelArchitecture::kSm90);
}
