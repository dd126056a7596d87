#pragma once
// The reference's rounding points inside the attention (SPEC.md step 5), element by element, on the host (CPU tests)
// and in both architectures' softmax: the raw fp32 score rounded to bf16 as its GEMM's output, divided by sqrt(128)
// and rounded again; the probability exp(x - max) / sum in fp32, rounded to bf16. OnlineSoftmax's reference_rounded
// applies them where a row's every key is in one KV block (v27).
#include <cuda_bf16.h>

#include "solutions/fused_b200/epilogue_math.hpp"  // VLB_FUSED_HD, round_to_bf16

namespace vlb::fused_b200 {

// The reference divides its bf16 scores by the Python float sqrt(128); PyTorch multiplies by the fp32 reciprocal of
// the fp32 divisor, then rounds to bf16. The same expression here, so the same bits.
inline constexpr float kReferenceScoreScale = 1.0f / static_cast<float>(11.313708498984761);

VLB_FUSED_HD float reference_scaled_score(float score) {
  return round_to_bf16(round_to_bf16(score) * kReferenceScoreScale);
}

// The reference divides exp(x - max) by the row's sum in fp32; here it is multiplied by the row's reciprocal, one
// division a row instead of one an element. The product differs from the correctly rounded quotient in its last
// fp32 bits, which moved the bf16 P in 3 of 10^6 seeded draws (tests/fused_b200/test_attention_rounding.cpp).
VLB_FUSED_HD float reference_probability(float exponential, float inverse_row_sum) {
  return round_to_bf16(exponential * inverse_row_sum);
}

}  // namespace vlb::fused_b200
