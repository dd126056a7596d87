#pragma once
// Tile geometry of the attention stage, architecture-neutral (host and device): how the query rows of one KV head
// are cut into tiles, which (token block, kv head, batch) the n-th tile is, and how many CTAs run them.
//
// GQA packing: the 4 query heads that share a KV head are rows of one tile. Q is [B, Lq, 32, 128]; for token t the
// 4 heads of group g are 512 contiguous elements, so a tile of 32 tokens x 4 heads is one 3-D TMA box and its row
// r is (token r / 4, head r % 4). Every K/V tile is then loaded once for 4 heads, and short Lq still fills the
// 128-row tiles.
#include <algorithm>
#include <cstdint>

#include "solutions/fused_b200/epilogue_math.hpp"

namespace vlb::fused_b200 {

inline constexpr int kQueryHeads = 32;
inline constexpr int kKvHeads = 8;
inline constexpr int kQueryHeadsPerKvHead = kQueryHeads / kKvHeads;            // 4
inline constexpr int kAttentionBlockM = 128;                                   // query rows per tile
inline constexpr int kTokensPerTile = kAttentionBlockM / kQueryHeadsPerKvHead;  // 32

struct AttentionShape {
  std::int64_t batch = 0;
  std::int64_t lang_seq = 0;    // Lq: query tokens per batch element
  std::int64_t vision_seq = 0;  // Lv: key/value tokens per batch element
};

struct AttentionTile {
  int token_block = 0;  // tokens [32 * token_block, 32 * token_block + 32) of the batch element
  int kv_head = 0;
  int batch = 0;
};

VLB_FUSED_HD int attention_token_blocks(std::int64_t lang_seq) {
  return static_cast<int>((lang_seq + kTokensPerTile - 1) / kTokensPerTile);
}

VLB_FUSED_HD int attention_kv_blocks(std::int64_t vision_seq, int block_n) {
  return static_cast<int>((vision_seq + block_n - 1) / block_n);
}

VLB_FUSED_HD std::int64_t attention_tile_count(const AttentionShape& shape) {
  return static_cast<std::int64_t>(attention_token_blocks(shape.lang_seq)) * kKvHeads * shape.batch;
}

// The token blocks of one (batch, kv head) are consecutive indices, so the CTAs that run at the same time read the
// same K and V (L2 hits) and every tile of a launch has the same length (Lv), so a static round robin is balanced.
VLB_FUSED_HD AttentionTile attention_tile(std::int64_t index, int token_blocks) {
  AttentionTile tile;
  tile.token_block = static_cast<int>(index % token_blocks);
  const std::int64_t head_and_batch = index / token_blocks;
  tile.kv_head = static_cast<int>(head_and_batch % kKvHeads);
  tile.batch = static_cast<int>(head_and_batch / kKvHeads);
  return tile;
}

// What a launch's tile walk needs (both architectures' kernel parameters carry it): the tiles, the token blocks per
// (batch, kv head), the KV blocks of block_n keys and how many keys the last of them holds (1 .. block_n).
struct AttentionWalk {
  std::int64_t tiles = 0;
  int token_blocks = 0;
  int kv_blocks = 0;
  int valid_keys_in_last_block = 0;
};

inline AttentionWalk attention_walk(const AttentionShape& shape, int block_n) {
  AttentionWalk walk;
  walk.tiles = attention_tile_count(shape);
  walk.token_blocks = attention_token_blocks(shape.lang_seq);
  walk.kv_blocks = attention_kv_blocks(shape.vision_seq, block_n);
  walk.valid_keys_in_last_block =
      static_cast<int>(shape.vision_seq - static_cast<std::int64_t>(walk.kv_blocks - 1) * block_n);
  return walk;
}

// The widths (keys) at which the sm90 kernel can compute the last KV block, one kernel instance each: the suite's
// tails are 8 and 16 keys (Lv 392, 784), 32 (1568) and 68-84 (196, 588, 980), 128 at Lv a multiple of 128. The
// narrowest that holds `valid_keys` (1 .. block_n) runs; block_n itself where none is narrower.
inline constexpr int kAttentionTailWidths[] = {16, 32, 64, 96};

inline int attention_tail_width(int valid_keys, int block_n) {
  for (const int width : kAttentionTailWidths) {
    if (valid_keys <= width && width < block_n) return width;
  }
  return block_n;
}

// The tiles one CTA of the persistent grid runs, in order: tile `first`, then every `stride`-th after it (a static
// round robin, with first = blockIdx.x and stride = gridDim.x in a kernel). Every role of a CTA (producer, consumers,
// MMA issuer, softmax warps) walks the tiles through this one object, so they agree on which tile is the n-th:
//   for (const AttentionStep step : AttentionTileScheduler(walk, blockIdx.x, gridDim.x)) { ... step.tile ... }
// step.iteration counts the CTA's tiles from 0 (barrier parities use it).
struct AttentionStep {
  AttentionTile tile;
  int iteration = 0;
};

class AttentionTileScheduler {
 public:
  VLB_FUSED_HD AttentionTileScheduler(const AttentionWalk& walk, std::int64_t first, std::int64_t stride)
      : tiles_(walk.tiles), token_blocks_(walk.token_blocks), first_(first), stride_(stride) {}

  struct End {};
  class Iterator {
   public:
    VLB_FUSED_HD Iterator(const AttentionTileScheduler& scheduler, std::int64_t index)
        : scheduler_(&scheduler), index_(index) {}
    VLB_FUSED_HD AttentionStep operator*() const {
      return {attention_tile(index_, scheduler_->token_blocks_), iteration_};
    }
    VLB_FUSED_HD Iterator& operator++() {
      index_ += scheduler_->stride_;
      ++iteration_;
      return *this;
    }
    VLB_FUSED_HD bool operator!=(End) const { return index_ < scheduler_->tiles_; }

   private:
    const AttentionTileScheduler* scheduler_;
    std::int64_t index_;
    int iteration_ = 0;
  };

  VLB_FUSED_HD Iterator begin() const { return Iterator(*this, first_); }
  VLB_FUSED_HD End end() const { return {}; }

 private:
  std::int64_t tiles_;
  int token_blocks_;
  std::int64_t first_;
  std::int64_t stride_;
};

// Persistent CTAs: one per SM at most (a CTA holds ~190 KB of shared memory), never more than there are tiles.
inline int attention_grid_size(const AttentionShape& shape, int sm_count) {
  return static_cast<int>(std::min<std::int64_t>(attention_tile_count(shape), std::max(sm_count, 1)));
}

}  // namespace vlb::fused_b200
