#include "solutions/fused_b200/attention.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/alignment.hpp"
#include "solutions/fused_b200/attention_kernels.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"

namespace vlb::fused_b200 {

void check_attention_shape(const AttentionShape& shape) {
  // TMA coordinates are 32-bit: tokens and batch must fit.
  constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max() / 2;
  if (shape.batch < 1 || shape.lang_seq < 1 || shape.vision_seq < 1 || shape.batch > kMaxExtent ||
      shape.lang_seq > kMaxExtent || shape.vision_seq > kMaxExtent) {
    throw UsageError("fused_b200 attention: shape B=" + std::to_string(shape.batch) +
                     " Lq=" + std::to_string(shape.lang_seq) + " Lv=" + std::to_string(shape.vision_seq) +
                     " is out of range (each must be between 1 and " + std::to_string(kMaxExtent) + ")");
  }
}

std::size_t attention_split_workspace_bytes(const AttentionShape& shape, int sm_count,
                                            KernelArchitecture architecture) {
#if defined(VLBENCH_HAS_SM90)
  if (architecture == KernelArchitecture::kSm90) return sm90::attention_split_workspace_bytes(shape, sm_count);
#endif
  (void)shape, (void)sm_count, (void)architecture;
  return 0;  // the sm100 kernel does not split its last wave (BLACKWELL.md)
}

SoftmaxForm attention_kernel_softmax_form(const AttentionShape& shape, int sm_count, bool split,
                                          KernelArchitecture architecture) {
#if defined(VLBENCH_HAS_SM90)
  if (architecture == KernelArchitecture::kSm90) return sm90::attention_kernel_softmax_form(shape, sm_count, split);
#endif
  (void)sm_count, (void)split, (void)architecture;
  constexpr int kSm100BlockN = 128;  // attention_config_sm100.hpp
  return attention_kv_blocks(shape.vision_seq, kSm100BlockN) == 1 ? SoftmaxForm::kOneBlock : SoftmaxForm::kOnline;
}

void clear_attention_split(const AttentionSplitWorkspace& workspace, const AttentionShape& shape, int sm_count,
                           cudaStream_t stream) {
  if (workspace.base == nullptr) return;  // a workspace is carved only where the current kernel splits
#if defined(VLBENCH_HAS_SM90)
  const std::size_t flag_bytes = sm90::attention_split_flag_bytes(shape, sm_count);
  if (flag_bytes > 0) VLB_CUDA_CHECK(cudaMemsetAsync(workspace.base, 0, flag_bytes, stream));
#else
  (void)shape, (void)sm_count, (void)stream;
#endif
}

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order, const AttentionSplitWorkspace& split) {
  check_attention_shape(shape);
  if (!aligned_16(tensors.q) || !aligned_16(tensors.k) || !aligned_16(tensors.v) || !aligned_16(tensors.out)) {
    throw UsageError("fused_b200 attention: Q, K, V and the output must be 16-byte aligned (TMA)");
  }
  if (split.base != nullptr) {
    const std::size_t needed = attention_split_workspace_bytes(shape, sm_count);
    if (split.bytes < needed || reinterpret_cast<std::uintptr_t>(split.base) % 256 != 0) {
      throw UsageError("fused_b200 attention: the split workspace must be 256-byte aligned and hold " +
                       std::to_string(needed) + " bytes (it holds " + std::to_string(split.bytes) + ")");
    }
  }
  (void)order;  // Hopper only: sm100 launches LaunchOrder::kAfterPrevious
  switch (current_kernel_architecture()) {
#if defined(VLBENCH_HAS_SM90)
    case KernelArchitecture::kSm90: sm90::launch_attention(tensors, shape, sm_count, stream, order, split); return;
#endif
#if defined(VLBENCH_HAS_SM100)
    case KernelArchitecture::kSm100:
      if (tensors.q_rope.positions != nullptr) {
        throw UsageError("fused_b200 attention: the sm100 kernel takes Q with its RoPE applied; rotate Q first");
      }
      if (tensors.biases.v != nullptr) {
        throw UsageError("fused_b200 attention: the sm100 kernel takes V with its bias added; add it in V's GEMM");
      }
      sm100::launch_attention(tensors, shape, sm_count, stream);
      return;
#endif
    default: throw_no_kernel("attention");
  }
}

}  // namespace vlb::fused_b200
