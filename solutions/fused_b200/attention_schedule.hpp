#pragma once
// Tile geometry of the attention stage, architecture-neutral (host and device): how the query rows of one KV head
// are cut into tiles, which (token block, kv head, batch) the n-th tile is, and how many CTAs run them.
//
// GQA packing: the 4 query heads that share a KV head are rows of one tile. Q is [B, Lq, 32, 128]; for token t the
// 4 heads of group g are 512 contiguous elements, so a tile of 32 tokens x 4 heads is one 3-D TMA box and its row
// r is (token r / 4, head r % 4). Every K/V tile is then loaded once for 4 heads, and short Lq still fills the
// 128-row tiles.
#include <algorithm>
#include <climits>
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

// The last wave split across the KV range (stream-K for the tail): where the tiles do not divide evenly among the
// CTAs, the full rounds run whole tiles as before and the `tiles - first_tile` tiles left over are cut into their KV
// blocks ("units", tile after tile, each tile's from the last block to the first) and every CTA takes an equal,
// contiguous range of units. A tile cut between CTAs is computed in pieces: each piece after its first writes its
// unnormalized O and softmax state to its CTA's slot, and the CTA whose range holds the tile's first unit (the last
// KV block, the masked one) merges them into its own before it normalizes and stores the tile. Only a CTA's first
// piece can start inside a tile, so a CTA fills at most one slot; only its last piece can merge, so a CTA waits only
// after it has written what others wait for, and on CTAs that do not wait before writing: no cycle. The waits need
// every CTA of the grid resident at once, which one CTA per SM and a grid of at most the SMs give. On a device shared
// so that fewer SMs than sm_count stay free to the launch (an MPS share, say), a merging CTA could wait on a peer
// that cannot start: pass that share's SM count.
struct AttentionSplit {
  std::int64_t first_tile = 0;  // tiles [first_tile, tiles) are split; first_tile == tiles: none is
  int units = 0;                // their KV blocks: (tiles - first_tile) * kv_blocks, below 2^31 (32-bit unit math)
  int ctas = 0;                 // the CTAs sharing them: the grid

  VLB_FUSED_HD bool active() const { return units > 0; }
  // CTA `cta`'s units are [segment_begin(cta), segment_begin(cta + 1)).
  VLB_FUSED_HD int segment_begin(int cta) const {
    return static_cast<int>(static_cast<std::int64_t>(units) * cta / ctas);
  }
  // The CTA whose units hold `unit`.
  VLB_FUSED_HD int owner(int unit) const {
    return static_cast<int>(((static_cast<std::int64_t>(unit) + 1) * ctas - 1) / units);
  }
};

// What a launch's tile walk needs (both architectures' kernel parameters carry it): the tiles, the token blocks per
// (batch, kv head), the KV blocks of block_n keys and how many keys the last of them holds (1 .. block_n), and the
// split of the last wave (none unless the launcher plans one: attention_split_plan).
struct AttentionWalk {
  std::int64_t tiles = 0;
  int token_blocks = 0;
  int kv_blocks = 0;
  int valid_keys_in_last_block = 0;
  AttentionSplit split;
};

inline AttentionWalk attention_walk(const AttentionShape& shape, int block_n) {
  AttentionWalk walk;
  walk.tiles = attention_tile_count(shape);
  walk.token_blocks = attention_token_blocks(shape.lang_seq);
  walk.kv_blocks = attention_kv_blocks(shape.vision_seq, block_n);
  walk.valid_keys_in_last_block =
      static_cast<int>(shape.vision_seq - static_cast<std::int64_t>(walk.kv_blocks - 1) * block_n);
  walk.split.first_tile = walk.tiles;
  return walk;
}

// The split pays where it shortens the last round by this many KV blocks or more. A block is ~2 us of a CTA's time
// at 128 keys; against that, every piece after a tile's first costs 64 KB written and read back by the one CTA that
// merges them (a few us at one SM's share of L2 bandwidth), and the flags' memset a launch. Measured (NOTES.md,
// v16): workloads 5 and 10 (11 and 47 blocks saved) gained, workloads 1, 4, 6 and 12 (3 to 7 saved, with up to 7
// pieces a tile) lost.
inline constexpr int kMinSplitSavedBlocks = 8;

// The split of `walk`'s last wave over `ctas` CTAs where it saves kMinSplitSavedBlocks or more, else none.
inline AttentionSplit attention_split_plan(const AttentionWalk& walk, int ctas) {
  AttentionSplit none;
  none.first_tile = walk.tiles;
  if (ctas < 2) return none;
  const std::int64_t left_over = walk.tiles % ctas;
  if (left_over == 0) return none;
  const std::int64_t units = left_over * walk.kv_blocks;
  const std::int64_t longest_segment = (units + ctas - 1) / ctas;
  if (walk.kv_blocks - longest_segment < kMinSplitSavedBlocks || units > INT32_MAX) return none;
  AttentionSplit split;
  split.first_tile = walk.tiles - left_over;
  split.units = static_cast<int>(units);
  split.ctas = ctas;
  return split;
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

// How a launch's softmax rounds P. kOnline, the flash form every suite workload runs: P rounded to bf16 before its
// row's sum is known, O divided by the sum at the end. Where few output tokens make every element count, the
// reference's rounding points (P normalized, then rounded): kOneBlock where every key is in one block (one pass,
// v27), kTwoPass where a few blocks hold them (the rows' max and sum over every block first, then P; v28). The
// flash form cost such outputs the 99.9% margin in one round of eight (B x Lq <= 3 at 130-300 keys, NOTES.md v27);
// the second pass costs one more Q K^T a block, so it stops at kTwoPassMaxKvBlocks.
enum class SoftmaxForm { kOnline, kOneBlock, kTwoPass };
inline constexpr std::int64_t kTwoPassMaxTokens = 8;  // B x Lq
inline constexpr int kTwoPassMaxKvBlocks = 4;

inline SoftmaxForm attention_softmax_form(const AttentionWalk& walk, const AttentionShape& shape) {
  if (walk.split.active()) return SoftmaxForm::kOnline;  // a split tile's pieces merge flash-form partials
  if (walk.kv_blocks == 1) return SoftmaxForm::kOneBlock;
  const bool few_tokens = shape.batch * shape.lang_seq <= kTwoPassMaxTokens;
  return few_tokens && walk.kv_blocks <= kTwoPassMaxKvBlocks ? SoftmaxForm::kTwoPass : SoftmaxForm::kOnline;
}

// The work one CTA of the persistent grid runs, in order: tile `cta`, then every `ctas`-th after it (a static round
// robin) up to the split's first tile, then the pieces of its range of split units. Every role of a CTA (producer,
// consumers, MMA issuer, softmax warps) walks its work through this one object, so they agree on the n-th step:
//   for (const AttentionStep step : AttentionTileScheduler<kSplit>(walk, blockIdx.x, gridDim.x)) { ... step.tile ... }
// step.iteration counts the CTA's steps from 0 (barrier parities use it).
struct AttentionStep {
  AttentionTile tile;
  int iteration = 0;
  int kv_begin = 0;  // KV blocks [kv_begin, kv_end) of the tile, run from kv_end - 1 down to kv_begin
  int kv_end = 0;
  // A piece that does not hold the tile's last KV block: its unnormalized O and softmax state go to this CTA's slot.
  bool writes_partial = false;
  // The tile's first piece of several: the CTAs (this one, merge_until] hold the others' partials; -1: none.
  int merge_until = -1;
};

// One CTA's walk: its steps' positions (a tile index below the split's first tile, else first_tile + a unit of the
// CTA's range of split units) and the step at each. kSplit false: the walk has no split (walk.split inactive) and
// the round robin alone is compiled, for the kernels that launch without one.
template <bool kSplit>
class AttentionCtaWalk {
 public:
  VLB_FUSED_HD AttentionCtaWalk(const AttentionWalk& walk, int cta, int ctas)
      : walk_(walk),
        cta_(cta),
        ctas_(ctas),
        segment_begin_(kSplit && walk.split.active() ? walk.split.segment_begin(cta) : 0),
        segment_end_(kSplit && walk.split.active() ? walk.split.segment_begin(cta + 1) : 0) {}

  VLB_FUSED_HD std::int64_t first() const {
    if constexpr (!kSplit) return cta_;
    return cta_ < first_tile() ? cta_ : first_tile() + segment_begin_;
  }

  VLB_FUSED_HD bool done(std::int64_t position) const {
    if constexpr (!kSplit) return position >= walk_.tiles;
    return position >= first_tile() && position - first_tile() >= segment_end_;
  }

  VLB_FUSED_HD std::int64_t next(std::int64_t position) const {
    if constexpr (!kSplit) return position + ctas_;
    if (position < first_tile()) {
      const std::int64_t tile = position + ctas_;
      return tile < first_tile() ? tile : first_tile() + segment_begin_;
    }
    const int tile_end = (unit(position) / walk_.kv_blocks + 1) * walk_.kv_blocks;
    return first_tile() + (tile_end < segment_end_ ? tile_end : segment_end_);
  }

  VLB_FUSED_HD AttentionStep step(std::int64_t position, int iteration) const {
    AttentionStep step;
    step.iteration = iteration;
    if (!kSplit || position < first_tile()) {
      step.tile = attention_tile(position, walk_.token_blocks);
      step.kv_end = walk_.kv_blocks;
      return step;
    }
    const int kv_blocks = walk_.kv_blocks;
    const int split_tile = unit(position) / kv_blocks;
    const int tile_first_unit = split_tile * kv_blocks;
    const int piece_end = tile_first_unit + kv_blocks < segment_end_ ? tile_first_unit + kv_blocks : segment_end_;
    // A tile's units run from its last KV block to its first.
    const int first_position = unit(position) - tile_first_unit;
    const int end_position = piece_end - tile_first_unit;
    step.tile = attention_tile(first_tile() + split_tile, walk_.token_blocks);
    step.kv_begin = kv_blocks - end_position;
    step.kv_end = kv_blocks - first_position;
    step.writes_partial = first_position > 0;
    if (first_position == 0 && end_position < kv_blocks) {
      step.merge_until = walk_.split.owner(tile_first_unit + kv_blocks - 1);
    }
    return step;
  }

 private:
  VLB_FUSED_HD std::int64_t first_tile() const { return walk_.split.first_tile; }
  VLB_FUSED_HD int unit(std::int64_t position) const { return static_cast<int>(position - first_tile()); }

  const AttentionWalk& walk_;  // in a kernel, the __grid_constant__ parameters': read there, not copied
  int cta_;
  int ctas_;
  int segment_begin_;  // the CTA's split units, [segment_begin_, segment_end_)
  int segment_end_;
};

// kSplit: whether the walk may split its last wave (AttentionSplit); without, a walk with a split is not allowed.
template <bool kSplit = false>
class AttentionTileScheduler {
 public:
  VLB_FUSED_HD AttentionTileScheduler(const AttentionWalk& walk, int cta, int ctas) : walk_(walk, cta, ctas) {}

  struct End {};
  class Iterator {
   public:
    VLB_FUSED_HD explicit Iterator(const AttentionCtaWalk<kSplit>& walk) : walk_(walk), position_(walk.first()) {}
    VLB_FUSED_HD AttentionStep operator*() const { return walk_.step(position_, iteration_); }
    VLB_FUSED_HD Iterator& operator++() {
      position_ = walk_.next(position_);
      ++iteration_;
      return *this;
    }
    VLB_FUSED_HD bool operator!=(End) const { return !walk_.done(position_); }

   private:
    AttentionCtaWalk<kSplit> walk_;
    std::int64_t position_;
    int iteration_ = 0;
  };

  VLB_FUSED_HD Iterator begin() const { return Iterator(walk_); }
  VLB_FUSED_HD End end() const { return {}; }

 private:
  AttentionCtaWalk<kSplit> walk_;
};

// Persistent CTAs: one per SM at most (a CTA holds ~225 KB of shared memory), never more than there are tiles.
inline int attention_grid_size(const AttentionShape& shape, int sm_count) {
  return static_cast<int>(std::min<std::int64_t>(attention_tile_count(shape), std::max(sm_count, 1)));
}

}  // namespace vlb::fused_b200
