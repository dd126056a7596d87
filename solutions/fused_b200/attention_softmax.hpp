#pragma once
// Online softmax of the attention stage on a thread's score fragment seen as (rows, cols), architecture-neutral: the
// caller gives the view and how many threads share a row (4 for Hopper's wgmma fragments, whose row is spread over a
// quad of lanes). The softmax runs in base 2; the scores are fp32 with 1/sqrt(128) folded into one multiply-add, or
// rounded as the reference rounds them (attention_numerics.hpp).
#include <cuda_bf16.h>

#include <cute/tensor.hpp>

#include <cmath>

#include "solutions/fused_b200/attention_numerics.hpp"

namespace vlb::fused_b200 {

inline constexpr float kLog2E = 1.4426950408889634f;
inline constexpr float kInverseSqrtHeadDim = 0.088388347648318447f;  // 1 / sqrt(128)
// The reference's multiplier: PyTorch divides by the scalar sqrt(128) as a multiplication by its fp32 reciprocal.
inline constexpr float kReferenceScoreScale = 1.0f / 11.313708498984761f;


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

// Each score s becomes bf16(bf16(s) * fp32(1/sqrt(128))), two at a time on the bf16x2 conversions (masked -inf stays
// -inf). Any two of the fragment's values pair up: the rounding is per element.
template <class Scores>
CUTE_DEVICE void round_scores_like_reference(Scores& scores) {
  constexpr int kCount = decltype(cute::size(scores))::value;
  static_assert(kCount % 2 == 0);
  CUTE_UNROLL
  for (int i = 0; i < kCount; i += 2) {
    const float2 rounded = __bfloat1622float2(__floats2bfloat162_rn(scores(i), scores(i + 1)));
    const float2 scaled = __bfloat1622float2(
        __floats2bfloat162_rn(rounded.x * kReferenceScoreScale, rounded.y * kReferenceScoreScale));
    scores(i) = scaled.x;
    scores(i + 1) = scaled.y;
  }
}

// Running max and sum of each of the thread's rows over the KV blocks seen so far.
template <int kRows, int kThreadsPerRow, ScoreRounding kRounding = ScoreRounding::kFp32>
struct OnlineSoftmax {
  // A score's multiplier in the exp2 argument: the change to base 2, with the 1/sqrt(128) scale where the scores do
  // not carry it yet.
  static constexpr float kExp2Scale =
      kRounding == ScoreRounding::kFp32 ? kLog2E * kInverseSqrtHeadDim : kLog2E;

  float row_max[kRows];
  float row_sum[kRows];  // this thread's share of the row's sum (its columns only) until finalize()

  // Turns one block of raw scores (rows, cols) into unnormalized probabilities 2^(s*c - max*c) in place, and gives the
  // factor by which each row's output accumulated so far must be multiplied (1 on the first block). Each row's first
  // block must hold at least one unmasked (finite) score.
  template <bool kFirstBlock, class Scores>
  CUTE_DEVICE void update(Scores& scores, float (&output_scale)[kRows]) {
    static_assert(decltype(cute::size<0>(scores))::value == kRows);
    if constexpr (kRounding == ScoreRounding::kReferenceBf16) round_scores_like_reference(scores);
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

  // 1 / (each row's full sum), for normalizing the output once at the end.
  CUTE_DEVICE void inverse_sums(float (&inverse)[kRows]) const {
    CUTE_UNROLL
    for (int row = 0; row < kRows; ++row) inverse[row] = 1.0f / row_sum_over_threads<kThreadsPerRow>(row_sum[row]);
  }
};

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
