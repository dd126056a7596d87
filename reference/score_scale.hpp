#pragma once
// The scaling of the scores by 1/sqrt(head_dim), as the reference rounds it.
//
// Decision (in the words of docs/operation.md "divided by sqrt(128) in bf16"): the reference divides a bf16 tensor by the Python
// float sqrt(128). PyTorch's CUDA eager path computes that in fp32 as a multiplication by the fp32 reciprocal of the
// fp32 divisor, then rounds to bf16:   scaled = bf16(float(score_bf16) * (1.0f / float(sqrt(128)))).
// (Dividing by bf16(sqrt(128)) = 11.3125 instead would scale every score by 1.0001: a systematic shift we avoid.)
// The exact paths multiply by 1/sqrt(128) without rounding.

namespace vlb::reference {

inline constexpr double kSqrtHeadDim = 11.313708498984761;  // sqrt(128)
inline constexpr float kFaithfulScoreScale = 1.0f / static_cast<float>(kSqrtHeadDim);
inline constexpr double kExactScoreScale = 1.0 / kSqrtHeadDim;

}  // namespace vlb::reference
