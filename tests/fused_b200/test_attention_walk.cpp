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
