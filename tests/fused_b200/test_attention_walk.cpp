// The attention launch's tile walk (attention_schedule.hpp), which both architectures' kernel parameters carry.
#include <catch2/catch.hpp>

#include "solutions/fused_b200/attention_schedule.hpp"

using namespace vlb::fused_b200;

TEST_CASE("attention walk: tiles, token blocks, KV blocks and the keys of the last block", "[fused_b200][attention]") {
  // B=2, Lq=541 (17 token blocks of 32, the last holding 29 tokens), Lv=980 (8 blocks of 128, the last 84 keys).
  const AttentionWalk ragged = attention_walk(AttentionShape{2, 541, 980}, 128);
  CHECK(ragged.token_blocks == 17);
  CHECK(ragged.tiles == 17 * kKvHeads * 2);
  CHECK(ragged.kv_blocks == 8);
  CHECK(ragged.valid_keys_in_last_block == 980 - 7 * 128);
  // Whole blocks: the last block is full, never empty.
  const AttentionWalk whole = attention_walk(AttentionShape{1, 64, 256}, 128);
  CHECK(whole.token_blocks == 2);
  CHECK(whole.kv_blocks == 2);
  CHECK(whole.valid_keys_in_last_block == 128);
  // One key, one token.
  const AttentionWalk tiny = attention_walk(AttentionShape{1, 1, 1}, 128);
  CHECK(tiny.tiles == kKvHeads);
  CHECK(tiny.kv_blocks == 1);
  CHECK(tiny.valid_keys_in_last_block == 1);
  // Another block size (the sm90 kernel's is a template parameter).
  CHECK(attention_walk(AttentionShape{1, 1, 196}, 112).valid_keys_in_last_block == 84);
}

TEST_CASE("attention walk: the last KV block runs at the narrowest width that holds its keys",
          "[fused_b200][attention]") {
  // The suite's tails: Lv 392 and 784 leave 8 and 16 keys, 1568 leaves 32, 196, 588 and 980 leave 68, 76 and 84.
  CHECK(attention_tail_width(attention_walk(AttentionShape{64, 256, 392}, 128).valid_keys_in_last_block, 128) == 16);
  CHECK(attention_tail_width(attention_walk(AttentionShape{16, 512, 784}, 128).valid_keys_in_last_block, 128) == 16);
  CHECK(attention_tail_width(attention_walk(AttentionShape{1, 1024, 1568}, 128).valid_keys_in_last_block, 128) == 32);
  CHECK(attention_tail_width(attention_walk(AttentionShape{2, 128, 196}, 128).valid_keys_in_last_block, 128) == 96);
  CHECK(attention_tail_width(attention_walk(AttentionShape{4, 541, 980}, 128).valid_keys_in_last_block, 128) == 96);
  CHECK(attention_tail_width(attention_walk(AttentionShape{1, 8192, 12544}, 128).valid_keys_in_last_block, 128) ==
        128);
  // Every count from 1 to the block: the width holds it, and the next narrower one would not.
  for (int valid = 1; valid <= 128; ++valid) {
    const int width = attention_tail_width(valid, 128);
    INFO("valid keys " << valid << ", width " << width);
    CHECK(width >= valid);
    CHECK(width % 16 == 0);
    CHECK(width <= 128);
    for (const int narrower : kAttentionTailWidths) {
      if (narrower < width) CHECK(narrower < valid);
    }
  }
  // No width beyond the block: a 64-key block runs its tail at 16, 32 or 64.
  CHECK(attention_tail_width(40, 64) == 64);
  CHECK(attention_tail_width(64, 64) == 64);
}
