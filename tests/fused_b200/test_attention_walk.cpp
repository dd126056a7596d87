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

TEST_CASE("attention softmax form: the reference's rounding points where few tokens span a few KV blocks",
          "[fused_b200][attention]") {
  const auto form = [](const AttentionShape& shape) {
    return attention_softmax_form(attention_walk(shape, 128), shape);
  };
  // One block holds every key: one pass, at any size.
  CHECK(form(AttentionShape{1, 1, 1}) == SoftmaxForm::kOneBlock);
  CHECK(form(AttentionShape{64, 1024, 128}) == SoftmaxForm::kOneBlock);
  // Few tokens over 2 to 4 blocks: two passes (the shapes that missed the 99.9% margin in v27's run: 1x1, 2x1 and
  // 1x3 at 130-300 keys).
  CHECK(form(AttentionShape{1, 1, 129}) == SoftmaxForm::kTwoPass);
  CHECK(form(AttentionShape{1, 1, 250}) == SoftmaxForm::kTwoPass);
  CHECK(form(AttentionShape{2, 1, 300}) == SoftmaxForm::kTwoPass);
  CHECK(form(AttentionShape{1, 3, 250}) == SoftmaxForm::kTwoPass);
  CHECK(form(AttentionShape{2, 4, 128 * kTwoPassMaxKvBlocks}) == SoftmaxForm::kTwoPass);
  // One block more, or one token more: the online form.
  CHECK(form(AttentionShape{1, 1, 128 * kTwoPassMaxKvBlocks + 1}) == SoftmaxForm::kOnline);
  CHECK(form(AttentionShape{3, 3, 250}) == SoftmaxForm::kOnline);
  CHECK(form(AttentionShape{1, kTwoPassMaxTokens + 1, 250}) == SoftmaxForm::kOnline);
  // The suite's workloads have 256 tokens or more over 2 to 98 blocks: the online form (its fewest tokens here).
  CHECK(form(AttentionShape{2, 128, 196}) == SoftmaxForm::kOnline);
  CHECK(form(AttentionShape{2, 256, 392}) == SoftmaxForm::kOnline);
  CHECK(form(AttentionShape{1, 512, 784}) == SoftmaxForm::kOnline);
  // A split walk merges online partials: never a reference form.
  AttentionWalk split = attention_walk(AttentionShape{1, 1, 250}, 128);
  split.split.units = 2;
  split.split.ctas = 2;
  CHECK(attention_softmax_form(split, AttentionShape{1, 1, 250}) == SoftmaxForm::kOnline);
}
