// The attention stage's tile geometry (attention_schedule.hpp) and shape check on the CPU: every (token block, kv
// head, batch) is one tile, the token blocks of a (batch, kv head) are consecutive, tails round up, and the grid
// never exceeds the SMs or the tiles.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

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

namespace {

std::int64_t tile_index(const AttentionTile& tile, const AttentionWalk& walk) {
  return (static_cast<std::int64_t>(tile.batch) * kKvHeads + tile.kv_head) * walk.token_blocks + tile.token_block;
}

// One piece of a split tile: which CTA ran it, in which step, as which kind of piece.
struct Piece {
  int cta = 0;
  AttentionStep step;
};

// Walks every CTA of a split launch and checks the split's contract: every KV block of every tile exactly once; a
// tile in one piece or in pieces of consecutive CTAs; only a CTA's first step may write a partial and only its last
// may merge; the merging piece holds the tail block and names exactly the CTAs holding the other pieces.
std::int64_t check_split_walk(const AttentionShape& shape, int ctas) {
  INFO("B=" << shape.batch << " Lq=" << shape.lang_seq << " Lv=" << shape.vision_seq << " on " << ctas << " CTAs");
  AttentionWalk walk = attention_walk(shape, 128);
  walk.split = attention_split_plan(walk, ctas);
  std::map<std::int64_t, std::vector<Piece>> pieces_by_tile;
  std::vector<std::int64_t> covered(static_cast<std::size_t>(walk.tiles * walk.kv_blocks), 0);
  for (int cta = 0; cta < ctas; ++cta) {
    std::vector<AttentionStep> steps;
    for (const AttentionStep step : AttentionTileScheduler<true>(walk, cta, ctas)) steps.push_back(step);
    std::size_t whole_tiles = 0;  // the round robin's steps, before the split's
    for (std::size_t n = 0; n < steps.size(); ++n) {
      const AttentionStep& step = steps[n];
      CHECK(step.iteration == static_cast<int>(n));
      REQUIRE(step.kv_begin >= 0);
      REQUIRE(step.kv_begin < step.kv_end);
      REQUIRE(step.kv_end <= walk.kv_blocks);
      const std::int64_t tile = tile_index(step.tile, walk);
      for (int block = step.kv_begin; block < step.kv_end; ++block) ++covered[tile * walk.kv_blocks + block];
      if (tile < walk.split.first_tile) {
        CHECK(n == whole_tiles++);
        CHECK(step.kv_begin == 0);
        CHECK(step.kv_end == walk.kv_blocks);
      }
      CHECK(step.writes_partial == (step.kv_end < walk.kv_blocks));
      if (step.writes_partial) CHECK(n == whole_tiles);  // the CTA's first split step: one slot per CTA
      if (step.merge_until >= 0) {
        CHECK(n + 1 == steps.size());
        CHECK(step.kv_end == walk.kv_blocks);
        CHECK(step.kv_begin > 0);
        CHECK(step.merge_until > cta);
      }
      pieces_by_tile[tile].push_back(Piece{cta, step});
    }
  }
  for (std::size_t unit = 0; unit < covered.size(); ++unit) {
    INFO("tile " << unit / walk.kv_blocks << " KV block " << unit % walk.kv_blocks);
    REQUIRE(covered[unit] == 1);
  }
  std::int64_t split_tiles = 0;
  for (const auto& [tile, pieces] : pieces_by_tile) {
    if (pieces.size() == 1) {
      CHECK(pieces[0].step.merge_until == -1);
      continue;
    }
    ++split_tiles;
    INFO("split tile " << tile);
    const Piece& first = pieces.front();  // the CTAs were walked in order
    CHECK(first.step.kv_end == walk.kv_blocks);
    CHECK(first.step.merge_until == pieces.back().cta);
    for (std::size_t p = 1; p < pieces.size(); ++p) {
      CHECK(pieces[p].step.writes_partial);
      CHECK(pieces[p].step.kv_end == pieces[p - 1].step.kv_begin);  // adjacent KV ranges, last block first
      // The CTAs between two pieces hold no units: the merge skips exactly those.
      CHECK(pieces[p].cta > pieces[p - 1].cta);
      for (int between = pieces[p - 1].cta + 1; between < pieces[p].cta; ++between) {
        CHECK(walk.split.segment_begin(between) == walk.split.segment_begin(between + 1));
      }
    }
  }
  return split_tiles;
}

}  // namespace

TEST_CASE("attention split: the suite's last waves split where they save kMinSplitSavedBlocks or more",
          "[fused_b200][attention]") {
  struct Expected {
    AttentionShape shape;
    bool split;
  };
  // On 132 SMs: workloads 5 and 10 leave 100 and 68 tiles to a last round that the split shortens from 49 and 98
  // KV blocks to 38 and 51; 1, 4, 6 and 12 would save 3, 3, 7 and 3 (of 4, 7, 8 and 5), the others one or none.
  static_assert(kMinSplitSavedBlocks == 8, "the expectations below follow the threshold");
  const Expected suite[] = {
      {{2, 256, 392}, false},  {{64, 256, 392}, false}, {{1, 512, 784}, false},   {{2, 1024, 1568}, false},
      {{16, 512, 784}, false}, {{1, 4096, 6272}, true}, {{4, 541, 980}, false},   {{2, 512, 784}, false},
      {{8, 128, 196}, false},  {{8, 256, 392}, false},  {{1, 8192, 12544}, true}, {{1, 1024, 1568}, false},
      {{32, 373, 588}, false}, {{4, 512, 784}, false},  {{16, 128, 196}, false},  {{2, 128, 196}, false},
  };
  for (const Expected& expected : suite) {
    const AttentionWalk walk = attention_walk(expected.shape, 128);
    const int grid = attention_grid_size(expected.shape, 132);
    const AttentionSplit split = attention_split_plan(walk, grid);
    INFO("B=" << expected.shape.batch << " Lq=" << expected.shape.lang_seq << " Lv=" << expected.shape.vision_seq);
    CHECK(split.active() == expected.split);
    if (split.active()) {
      CHECK(split.first_tile == walk.tiles / grid * grid);
      CHECK(split.units == (walk.tiles - split.first_tile) * walk.kv_blocks);
      CHECK(walk.kv_blocks - (split.units + grid - 1) / grid >= kMinSplitSavedBlocks);
    } else {
      CHECK(split.first_tile == walk.tiles);
    }
  }
  const AttentionSplit workload_10 = attention_split_plan(attention_walk({1, 8192, 12544}, 128), 132);
  CHECK(workload_10.first_tile == 15 * 132);
  CHECK(workload_10.units == 68 * 98);
  // Below the threshold: workload 6's 16 tiles of 8 blocks would end in one block (7 saved).
  const AttentionWalk workload_6 = attention_walk({4, 541, 980}, 128);
  CHECK(workload_6.kv_blocks - (16 * workload_6.kv_blocks + 131) / 132 == kMinSplitSavedBlocks - 1);
  CHECK(attention_split_plan(attention_walk({1, 8192, 12544}, 128), 1).active() == false);
  const AttentionSplit one_tile = attention_split_plan(attention_walk({1, 96, 2500}, 128), 23);
  CHECK(one_tile.units == 20);
  CHECK(one_tile.segment_begin(0) == one_tile.segment_begin(1));  // CTA 0 has no units: the merge skips it
  CHECK(attention_split_plan(attention_walk({1, 8192, 12544}, 128), 128).active() == false);  // 2048 = 16 x 128
}

TEST_CASE("attention split: every KV block once, partials and merges where the contract puts them",
          "[fused_b200][attention]") {
  CHECK(check_split_walk({1, 8192, 12544}, 132) == 68);  // 68 tiles of 98 blocks: pieces on 2 or 3 CTAs each
  CHECK(check_split_walk({1, 4096, 6272}, 132) == 100);  // 100 tiles of 49 blocks
  CHECK(check_split_walk({3, 64, 2500}, 20) == 8);       // 8 tiles of 20 blocks left on 20 CTAs
  CHECK(check_split_walk({1, 96, 2500}, 23) == 1);       // 1 tile of 20 blocks on 23 CTAs: 20 pieces, 3 CTAs idle
  CHECK(check_split_walk({1, 64, 2500}, 12) == 4);       // 4 tiles of 20 blocks on 12 CTAs: 3 or 4 pieces a tile
  CHECK(check_split_walk({64, 256, 392}, 132) == 0);     // no split: the round robin alone
  // Fresh shapes and grids each run (the seed is printed on failure).
  const std::uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  int split_walks = 0;  // walks that split, and the tiles they cut into pieces
  std::int64_t split_tiles = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const AttentionShape shape{std::uniform_int_distribution<std::int64_t>(1, 6)(rng),
                               std::uniform_int_distribution<std::int64_t>(1, 700)(rng),
                               std::uniform_int_distribution<std::int64_t>(1, 4000)(rng)};
    const int ctas = attention_grid_size(shape, std::uniform_int_distribution<int>(1, 140)(rng));
    split_walks += attention_split_plan(attention_walk(shape, 128), ctas).active();
    split_tiles += check_split_walk(shape, ctas);
  }
  CHECK(split_walks > 30);  // the trials exercised the split, not only whole tiles
  CHECK(split_tiles > split_walks);
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
