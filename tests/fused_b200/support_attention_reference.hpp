#pragma once
// An independent double-precision attention for chosen query tokens, written from docs/operation.md (steps 4-5: GQA head h on
// KV head h / 4, softmax(Q K^T / sqrt(128)) V, no mask), for checking the attention stage alone.
#include <cuda_bf16.h>

#include <cstdint>
#include <span>
#include <vector>

namespace vlb::fused_b200::testing {

struct AttentionInputsHost {
  std::int64_t batch = 0, lang_seq = 0, vision_seq = 0;
  std::vector<__nv_bfloat16> q;  // [B, Lq, 32, 128]
  std::vector<__nv_bfloat16> k;  // [B, Lv, 8, 128]
  std::vector<__nv_bfloat16> v;  // [B, Lv, 8, 128]
};

// Seeded normal values with the spread of the projections' outputs (std ~1.3), never zeros.
AttentionInputsHost make_attention_inputs(std::int64_t batch, std::int64_t lang_seq, std::int64_t vision_seq,
                                          std::uint64_t seed);

// Row-major [tokens.size(), 32 * 128]: the attention output of each chosen token (an index into B*Lq).
std::vector<double> reference_attention(const AttentionInputsHost& inputs, std::span<const std::int64_t> tokens);

// bf16 values as floats (the reference's CPU stages take them so).
std::vector<float> as_floats(const std::vector<__nv_bfloat16>& values);

// Row-major [B * Lq, 32 * 128]: the reference's own attention (reference/cpu_faithful.cpp, with its rounding points:
// bf16 scores, scaled and rounded, fp32 softmax, P normalized then rounded, O rounded), as floats of bf16 values.
std::vector<float> reference_rounded_attention(const AttentionInputsHost& inputs);

}  // namespace vlb::fused_b200::testing
