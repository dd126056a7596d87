#pragma once
// How a launch's groups (K and V) become one GEMM launch: the two weights as one tensor whose L stride is their
// address difference (ordered so that it is positive), or one launch per group where no TMA stride can express it.
// Architecture-neutral host code, used by the sm90 and sm100 launchers.
#include <cstdint>
#include <optional>

#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// A TMA descriptor takes strides that are multiples of 16 bytes below 2^40 bytes.
inline constexpr std::int64_t kMaxTmaStrideBytes = std::int64_t{1} << 40;

// Pure: the bf16 elements from `first` to `second`, of either sign, where that is a multiple of 16 bytes; none
// otherwise. CUTLASS's K/V pair reads its biases at such a stride (cutlass_pair_strides).
std::optional<std::int64_t> element_stride(const void* first, const void* second);

// Pure: the bf16 elements from `first` to `second`, where that is a positive multiple of 16 bytes below
// `limit_bytes` (a stride a TMA-fed kernel can step by); none otherwise. Our K/V launch and cuBLAS's batched K/V
// GEMM (projection_cublas.hpp, with limits of its own) both step from one weight to the other by it.
std::optional<std::int64_t> forward_stride(const void* first, const void* second, std::int64_t limit_bytes);

struct GroupedWeights {
  bool one_launch = true;
  bool swapped = false;            // group 0 of the launch is the caller's output 1
  std::int64_t group_stride = 0;   // elements between the two weights where one_launch (one matrix for one group)
};

GroupedWeights group_weights(const ProjectionLaunch& launch);

}  // namespace vlb::fused_b200
