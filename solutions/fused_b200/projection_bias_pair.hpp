#pragma once
// The K and V biases side by side, for the batched K/V GEMM on cuBLAS (projection_cublas.hpp): where the caller's
// two biases are not a stride apart that cuBLASLt steps by correctly, the GEMM reads this copy instead.
// Architecture-neutral.
#include <cuda_runtime.h>

#include "solutions/fused_b200/launch_order.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// pair[0, 1024) = first[0, 1024), pair[1024, 2048) = second[0, 1024); any alignment. One launch of one block. With
// LaunchOrder::kOverlapPrevious it starts as the kernel before it ends (the biases must have been written before
// that kernel started) and finishes only after it (its last step waits for it), so that what follows in the stream
// still comes after both (v23).
void launch_bias_pair(const bf16* first, const bf16* second, bf16* pair, cudaStream_t stream,
                      LaunchOrder order = LaunchOrder::kAfterPrevious);

}  // namespace vlb::fused_b200
