// The attention stage's tile geometry (attention_schedule.hpp) and shape check on the CPU: every (token block, kv
// head, batch) is one tile, the token blocks of a (batch, kv head) are consecutive, tails round up, and the grid
// never exceeds the SMs or the tiles.
#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/attention_schedule.hpp"

using namespace vlb::fused_b200;

TEST_CASE("attention tiles: 32 tokens x 4 heads per tile, tails rounded up", "[fused_b200][attention]") {
  CHECK(kAttentionBlockM == kTokensPerTile * kQueryHeadsPerKvHead);
  CHECK(attention_token_blocks(1) == 1);
  CHECK(attention_token_blocks(32) == 1);
  CHECK(attention_token_blocks(33) == 2);
  CHECK(attention_token_blocks(373) == 12);
  CHECK(attention_token_blocks(8192) == 256);
  CHECK(attention_kv_blocks(196, 128) == 2);
  CHECK(attention_kv_blocks(12544, 128) == 98);
  CHECK(attention_kv_blocks(1, 128) == 1);
  CHECK(attention_tile_count({64, 256, 392}) == 64 * 8 * 8);
  CHECK(attention_tile_count({2, 128, 196}) == 2 * 8 * 4);
}

TEST_CASE("attention tiles: each (token block, kv head, batch) exactly once, token blocks consecutive",
          "[fused_b200][attention]") {
  for (const AttentionShape shape : {AttentionShape{3, 373, 588}, AttentionShape{1, 1, 1}, AttentionShape{5, 65, 7}}) {
    const int token_blocks = attention_token_blocks(shape.lang_seq);
    std::set<std::tuple<int, int, int>> seen;
    AttentionTile previous{};
    for (std::int64_t index = 0; index < attention_tile_count(shape); ++index) {
      const AttentionTile tile = attention_tile(index, token_blocks);
      REQUIRE(tile.token_block >= 0);
      REQUIRE(tile.token_block < token_blocks);
      REQUIRE(tile.kv_head >= 0);
      REQUIRE(tile.kv_head < kKvHeads);
      REQUIRE(tile.batch >= 0);
      REQUIRE(tile.batch < shape.batch);
      CHECK(seen.insert({tile.token_block, tile.kv_head, tile.batch}).second);
      if (index > 0 && tile.token_block > 0) {
        CHECK(tile.token_block == previous.token_block + 1);
        CHECK(tile.kv_head == previous.kv_head);
        CHECK(tile.batch == previous.batch);
      }
      previous = tile;
    }
    CHECK(seen.size() == static_cast<std::size_t>(token_blocks) * kKvHeads * shape.batch);
  }
}

TEST_CASE("attention tile scheduler: the CTAs of a grid run every tile once, each CTA its own in order",
          "[fused_b200][attention]") {
  // Workload 10's 2048 tiles on 132 SMs (15.5 waves), and a ragged shape with fewer tiles than SMs.
  for (const AttentionShape shape : {AttentionShape{1, 8192, 12544}, AttentionShape{3, 45, 7}}) {
    const AttentionWalk walk = attention_walk(shape, 128);
    const int grid = attention_grid_size(shape, 132);
    std::set<std::tuple<int, int, int>> seen;
    for (int cta = 0; cta < grid; ++cta) {
      int expected_iteration = 0;
      for (const AttentionStep step : AttentionTileScheduler(walk, cta, grid)) {
        CHECK(step.iteration == expected_iteration);
        const AttentionTile expected = attention_tile(cta + static_cast<std::int64_t>(expected_iteration) * grid,
                                                      walk.token_blocks);
        CHECK(std::tie(step.tile.token_block, step.tile.kv_head, step.tile.batch) ==
              std::tie(expected.token_block, expected.kv_head, expected.batch));
        CHECK(seen.insert({step.tile.token_block, step.tile.kv_head, step.tile.batch}).second);
        ++expected_iteration;
      }
    }
    CHECK(static_cast<std::int64_t>(seen.size()) == walk.tiles);
  }
}

TEST_CASE("attention grid: persistent, at most one CTA per SM and per tile", "[fused_b200][attention]") {
  CHECK(attention_grid_size({1, 8192, 12544}, 132) == 132);
  CHECK(attention_grid_size({2, 128, 196}, 132) == 64);
  CHECK(attention_grid_size({1, 1, 1}, 132) == 8);
  CHECK(attention_grid_size({1, 1, 1}, 4) == 4);
}

TEST_CASE("attention shapes out of range are rejected before any launch", "[fused_b200][attention]") {
  CHECK_THROWS_AS(check_attention_shape({0, 1, 1}), vlb::UsageError);
  CHECK_THROWS_AS(check_attention_shape({1, 0, 1}), vlb::UsageError);
  CHECK_THROWS_AS(check_attention_shape({1, 1, 0}), vlb::UsageError);
  CHECK_THROWS_AS(check_attention_shape({1, std::int64_t{1} << 31, 1}), vlb::UsageError);
  CHECK_NOTHROW(check_attention_shape({64, 8192, 12544}));
  CHECK_NOTHROW(check_attention_shape({1, 1, 1}));
}
