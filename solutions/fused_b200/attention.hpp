#pragma once
// The attention stage of the fused solution: softmax(Q K^T / sqrt(128)) V per (batch, query head), GQA 32/8, no mask.
// Architecture-neutral declaration: each call dispatches to the kernel built for the current device (sm90a today)
// and throws SystemError where none was built.
//
// Layouts (row-major, contiguous, 16-byte aligned): q and out [B, Lq, 32, 128] (the projections' [B*Lq, 4096]);
// k and v [B, Lv, 8, 128] ([B*Lv, 1024]). K carries its RoPE already; Q too, unless q_rope asks the kernel to rotate
// it (Hopper). Numerics: fp32 scores, fp32 online softmax, probabilities rounded to bf16 for the P V product, fp32
// accumulation, output rounded to bf16 once. (The reference rounds the scores to bf16 before and after the
// 1/sqrt(128) scale; doing so here cost 75% more time and matched no better: NOTES.md, v2.)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "solutions/fused_b200/attention_schedule.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/launch_order.hpp"

namespace vlb::fused_b200 {

// Q's 1D RoPE inside the attention, where the Q projection left Q unrotated (cuBLAS's GEMM, projection_cublas.hpp):
// the Hopper kernel rotates each Q tile in shared memory, with rotate_pair's math (epilogue_math.hpp), before the
// tile's first S = Q K^T. Q is read there anyway, so this costs no pass over memory (NOTES.md, v13).
struct AttentionQueryRope {
  const std::int64_t* positions = nullptr;  // language_position_ids [B, Lq]; nullptr: Q carries its RoPE already
  RopeArithmetic arithmetic = RopeArithmetic::kFp32;
};

// A bias the V projection left out of V (CublasProjections::project_kv, KvGemms::kBatchedBiasesAfter), added to the
// normalized output instead: each row of softmax(S) sums to one, so P (V + 1 bvᵀ) / l = P V / l + bvᵀ, each query
// head taking its KV head's 128 values. Hopper only (v24).
struct AttentionBiases {
  const __nv_bfloat16* v = nullptr;  // [1024] (kv_head * 128 + dim); nullptr: V carries its bias
};

struct AttentionTensors {
  const __nv_bfloat16* q = nullptr;
  const __nv_bfloat16* k = nullptr;
  const __nv_bfloat16* v = nullptr;
  __nv_bfloat16* out = nullptr;
  AttentionQueryRope q_rope;
  AttentionBiases biases;
};

// Room for the last wave split across the KV range (AttentionSplit, attention_schedule.hpp; Hopper): the pieces'
// partial results and one flag per CTA and warpgroup. Without it (base nullptr) the launch splits nothing.
struct AttentionSplitWorkspace {
  void* base = nullptr;  // 256-byte aligned
  std::size_t bytes = 0;
};

// The bytes the split needs at this shape on `architecture`'s kernel: 0 where it would not split (the last wave too
// full to gain kMinSplitSavedBlocks, or not Hopper).
std::size_t attention_split_workspace_bytes(const AttentionShape& shape, int sm_count,
                                            KernelArchitecture architecture = current_kernel_architecture());

// How `architecture`'s kernel rounds P at this shape, launched with or without a split workspace (SoftmaxForm,
// attention_schedule.hpp): on Hopper attention_softmax_form of its walk; the sm100 kernel has the one-block form
// but not the two-pass one (BLACKWELL.md). Tests choose the reference to meet by it.
SoftmaxForm attention_kernel_softmax_form(const AttentionShape& shape, int sm_count, bool split,
                                          KernelArchitecture architecture = current_kernel_architecture());

// Zeroes the split's flags (a memset of at most a few KB; nothing where the shape does not split). The flags must be
// zero when the kernel starts and the workspace's bytes are anyone's before (the judge scrambles them each call):
// enqueue this on the stream before launch_attention, with nothing between the two that uses the same workspace.
void clear_attention_split(const AttentionSplitWorkspace& workspace, const AttentionShape& shape, int sm_count,
                           cudaStream_t stream);

// Throws UsageError for an empty or oversized shape, misaligned pointers, a split workspace smaller than
// attention_split_workspace_bytes, or for q_rope or V's bias on Blackwell (its kernel takes Q rotated and V with its
// bias: BLACKWELL.md), SystemError where no kernel was built for the device. Enqueues one launch on
// `stream`. The kernel reads Q, K and V only after the previous kernel on the stream has finished, whatever `order`
// (launch_order.hpp).
void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order = LaunchOrder::kAfterPrevious, const AttentionSplitWorkspace& split = {});

// Checks that a shape is one the kernels take (every dimension >= 1, TMA coordinates fit in 32 bits).
void check_attention_shape(const AttentionShape& shape);

}  // namespace vlb::fused_b200
