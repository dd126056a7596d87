#pragma once
// Online softmax of the attention stage on a thread's score fragment seen as (rows, cols), architecture-neutral: the
// caller gives the view and how many threads share a row (4 for Hopper's wgmma fragments, whose row is spread over a
// quad of lanes). Scores stay fp32; the softmax runs in base 2 with 1/sqrt(128) folded into one multiply-add. Where
// a row's every key is in one block, the reference's own rounding points instead (reference_rounded, v27), and in
// two passes where few rows span a few blocks (reference_statistics, then reference_probabilities, v28).
#include <cute/tensor.hpp>

#include <cmath>

#include "solutions/fused_b200/attention_rounding.hpp"

namespace vlb::fused_b200 {

inline constexpr float kLog2E = 1.4426950408889634f;
inline constexpr float kInverseSqrtHeadDim = 0.088388347648318447f;  // 1 / sqrt(128)


// 2^x through the special-function unit (ex2.approx: ~2 ulp, far below the bf16 rounding of P that follows).
CUTE_DEVICE float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <int kThreadsPerRow>
CUTE_DEVICE float row_max_over_threads(float value) {
  CUTE_UNROLL
  for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

template <int kThreadsPerRow>
CUTE_DEVICE float row_sum_over_threads(float value) {
  CUTE_UNROLL
  for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

// Running max and sum of each of the thread's rows over the KV blocks seen so far.
template <int kRows, int kThreadsPerRow>
struct OnlineSoftmax {
  // A score's multiplier in the exp2 argument: the 1/sqrt(128) scale and the change to base 2 in one.
  static constexpr float kExp2Scale = kLog2E * kInverseSqrtHeadDim;

  float row_max[kRows];
  float row_sum[kRows];  // this thread's share of the row's sum (its columns only) until finalize()

  // Turns one block of raw scores (rows, cols) into unnormalized probabilities 2^(s*c - max*c) in place, and gives the
  // factor by which each row's output accumulated so far must be multiplied (1 on the first block). Each row's first
  // block must hold at least one unmasked (finite) score.
  template <bool kFirstBlock, class Scores>
  CUTE_DEVICE void update(Scores& scores, float (&output_scale)[kRows]) {
    static_assert(decltype(cute::size<0>(scores))::value == kRows);
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) {
      float block_max = -INFINITY;
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) block_max = fmaxf(block_max, scores(row, col));
      block_max = row_max_over_threads<kThreadsPerRow>(block_max);
      const float new_max = kFirstBlock ? block_max : fmaxf(row_max[row], block_max);
      output_scale[row] = kFirstBlock ? 1.0f : fast_exp2((row_max[row] - new_max) * kExp2Scale);
      row_max[row] = new_max;
      const float scaled_max = new_max * kExp2Scale;
      float block_sum = 0.0f;
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) {
        const float probability = fast_exp2(fmaf(scores(row, col), kExp2Scale, -scaled_max));
        scores(row, col) = probability;
        block_sum += probability;
      }
      row_sum[row] = kFirstBlock ? block_sum : fmaf(row_sum[row], output_scale[row], block_sum);
    }
  }

  // One row of raw scores into the reference's scaled scores (reference_scaled_score), in place; their max over the
  // row's threads.
  template <class Scores>
  CUTE_DEVICE static float scale_row_to_reference(Scores& scores, int row) {
    float max = -INFINITY;
    CUTE_UNROLL
    for (int col = 0; col < cute::size<1>(scores); ++col) {
      scores(row, col) = reference_scaled_score(scores(row, col));
      max = fmaxf(max, scores(row, col));
    }
    return row_max_over_threads<kThreadsPerRow>(max);
  }

  // For a row's one and only KV block (Lv <= the block), the reference's rounding points instead of the online
  // softmax's: scores rounded to bf16, scaled and rounded again, and P normalized before its bf16 rounding, so P V
  // needs no division after it. The flash form rounds unnormalized P and divides O by the sum at the end; where few
  // keys share a row, that difference alone cost small outputs the 99.9% margin (NOTES.md, v26 and v27). It pays
  // only because Q and K equal the reference's bit for bit (v8): before, rounding the scores turned their last-bit
  // differences into whole bf16 steps (v7). exp and the division are the online softmax's fast forms (ex2.approx,
  // the row's reciprocal): a few fp32 ulps from PyTorch's expf and quotient, which the bf16 rounding of P absorbs in
  // all but rare elements; the accurate forms cost few-key shapes 2-10% of the whole operation (v27a). Masked columns
  // (-inf) give P = 0. row_max is then in scaled units and row_sum this thread's share of 1 (inverse_sums gives
  // exactly 1): no update may follow.
  template <class Scores>
  CUTE_DEVICE void reference_rounded(Scores& scores) {
    static_assert(decltype(cute::size<0>(scores))::value == kRows);
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) {
      const float max = scale_row_to_reference(scores, row);
      float sum = 0.0f;
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) {
        scores(row, col) = fast_exp2((scores(row, col) - max) * kLog2E);  // x - max in fp32, as the reference
        sum += scores(row, col);
      }
      const float inverse_sum = 1.0f / row_sum_over_threads<kThreadsPerRow>(sum);
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) {
        scores(row, col) = reference_probability(scores(row, col), inverse_sum);
      }
      row_max[row] = max;
      row_sum[row] = 1.0f / kThreadsPerRow;
    }
  }

  // The two-pass form's first pass (v28), block by block: each row's max of the reference's scaled scores (as
  // reference_rounded scales them, in place) and this thread's share of the sum of exp(x - max), rescaled as the max
  // moves. finish_statistics, then reference_probabilities on every block again.
  template <bool kFirstBlock, class Scores>
  CUTE_DEVICE void reference_statistics(Scores& scores) {
    static_assert(decltype(cute::size<0>(scores))::value == kRows);
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) {
      const float block_max = scale_row_to_reference(scores, row);
      const float new_max = kFirstBlock ? block_max : fmaxf(row_max[row], block_max);
      float block_sum = 0.0f;
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) {
        block_sum += fast_exp2((scores(row, col) - new_max) * kLog2E);
      }
      const float rescale = kFirstBlock ? 0.0f : fast_exp2((row_max[row] - new_max) * kLog2E);
      row_sum[row] = kFirstBlock ? block_sum : fmaf(row_sum[row], rescale, block_sum);
      row_max[row] = new_max;
    }
  }

  // The first pass done: 1 / each row's whole sum into `inverse_sum`, for reference_probabilities. row_sum becomes
  // this thread's share of 1, as after reference_rounded: P comes normalized, inverse_sums gives exactly 1.
  CUTE_DEVICE void finish_statistics(float (&inverse_sum)[kRows]) {
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) {
      inverse_sum[row] = 1.0f / row_sum_over_threads<kThreadsPerRow>(row_sum[row]);
      row_sum[row] = 1.0f / kThreadsPerRow;
    }
  }

  // The two-pass form's second pass: one block of raw scores into P at the reference's rounding points
  // (reference_rounded's, with the max and sum of every block); masked columns (-inf) give 0.
  template <class Scores>
  CUTE_DEVICE void reference_probabilities(Scores& scores, const float (&inverse_sum)[kRows]) const {
    static_assert(decltype(cute::size<0>(scores))::value == kRows);
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) {
      CUTE_UNROLL
      for (int col = 0; col < cute::size<1>(scores); ++col) {
        const float exponential = fast_exp2((reference_scaled_score(scores(row, col)) - row_max[row]) * kLog2E);
        scores(row, col) = reference_probability(exponential, inverse_sum[row]);
      }
    }
  }

  // 1 / (each row's full sum), for normalizing the output once at the end.
  CUTE_DEVICE void inverse_sums(float (&inverse)[kRows]) const {
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) inverse[row] = 1.0f / row_sum_over_threads<kThreadsPerRow>(row_sum[row]);
  }
};

// Whether any row of the warp has a factor other than 1, i.e. a running max that moved in the last update. Where
// none has, rescaling the output would multiply by exactly 1.0f, so the caller skips it: the same bits, less FP32
// work. The answer is the warp's (a vote), so the branch never splits a warp ahead of its next wgmma. On random data
// a row's max moves ever more rarely as blocks go by (the j-th block holds it with chance 1/j), so on long KV ranges
// most warps skip most rescales.
template <int kRows>
CUTE_DEVICE bool any_row_rescaled(const float (&factor)[kRows]) {
  bool rescaled = false;
  CUTE_UNROLL
  for (int row = 0; row < kRows; ++row) rescaled |= factor[row] != 1.0f;
  return __any_sync(0xffffffffu, rescaled);
}

// out(row, col) *= factor[row] on a (rows, cols) view of an accumulator fragment.
template <class Output, int kRows>
CUTE_DEVICE void scale_rows(Output& output, const float (&factor)[kRows]) {
  CUTE_UNROLL
  for (int row = 0; row < kRows; ++row) {
    CUTE_UNROLL
    for (int col = 0; col < cute::size<1>(output); ++col) output(row, col) *= factor[row];
  }
}

// Scores of key columns at or past `valid_columns` (the tail of the last KV block) become -inf.
template <class Scores, class Coordinates>
CUTE_DEVICE void mask_columns(Scores& scores, const Coordinates& coordinates, int valid_columns) {
  CUTE_UNROLL
  for (int col = 0; col < cute::size<1>(scores); ++col) {
    if (cute::get<1>(coordinates(0, col)) >= valid_columns) {
      CUTE_UNROLL
      for (int row = 0; row < cute::size<0>(scores); ++row) scores(row, col) = -INFINITY;
    }
  }
}

}  // namespace vlb::fused_b200
