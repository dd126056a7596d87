#pragma once
// TMA descriptors of the attention stage's tensors, architecture-neutral host code (the sm90 and sm100 launchers;
// in a .cu file for CUTLASS's driver-call wrapper):
// a [head_dim, heads, tokens, batch] bf16 tensor (innermost first) with 128-byte swizzled boxes, so that a box of
// 64 columns lands in shared memory as the K-major SW128 layout both wgmma and tcgen05.mma read.
#include <cuda.h>

#include <cstdint>

namespace vlb::fused_b200 {

struct HeadTensorBox {
  std::uint32_t columns = 64;  // of head_dim; 64 bf16 = one 128-byte swizzle row
  std::uint32_t heads = 1;
  std::uint32_t tokens = 1;
};

// Throws SystemError naming `name` and the extents when the driver rejects the descriptor.
CUtensorMap make_head_tensor_map(const void* base, std::int64_t heads, std::int64_t tokens, std::int64_t batch,
                                 const HeadTensorBox& box, const char* name);

}  // namespace vlb::fused_b200
