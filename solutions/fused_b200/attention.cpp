#include "solutions/fused_b200/attention.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/attention_kernels.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"

namespace vlb::fused_b200 {
namespace {

bool aligned_16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

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

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count, cudaStream_t stream,
                      LaunchOrder order) {
  check_attention_shape(shape);
  if (!aligned_16(tensors.q) || !aligned_16(tensors.k) || !aligned_16(tensors.v) || !aligned_16(tensors.out)) {
    throw UsageError("fused_b200 attention: Q, K, V and the output must be 16-byte aligned (TMA)");
  }
  (void)order;  // Hopper only: sm100 launches LaunchOrder::kAfterPrevious
  switch (current_kernel_architecture()) {
#if defined(VLBENCH_HAS_SM90)
    case KernelArchitecture::kSm90: sm90::launch_attention(tensors, shape, sm_count, stream, order); return;
#endif
#if defined(VLBENCH_HAS_SM100)
    case KernelArchitecture::kSm100:
      if (tensors.q_rope.positions != nullptr) {
        throw UsageError("fused_b200 attention: the sm100 kernel takes Q with its RoPE applied; rotate Q first");
      }
      sm100::launch_attention(tensors, shape, sm_count, stream);
      return;
#endif
    default: throw_no_kernel("attention");
  }
}

}  // namespace vlb::fused_b200
