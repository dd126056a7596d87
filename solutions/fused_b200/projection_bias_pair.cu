#include "solutions/fused_b200/projection_bias_pair.hpp"

#include <cuda_bf16.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/problem.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr int kBiasElements = static_cast<int>(ModelDims::kKvProjDim);
constexpr int kThreads = 256;

// Element by element: the caller's biases need not be 16-byte aligned, and 4 KiB is nothing to move.
__global__ void bias_pair_kernel(const __nv_bfloat16* first, const __nv_bfloat16* second, __nv_bfloat16* pair) {
  for (int i = threadIdx.x; i < 2 * kBiasElements; i += kThreads) {
    pair[i] = i < kBiasElements ? first[i] : second[i - kBiasElements];
  }
}

}  // namespace

void launch_bias_pair(const bf16* first, const bf16* second, bf16* pair, cudaStream_t stream) {
  bias_pair_kernel<<<1, kThreads, 0, stream>>>(first, second, pair);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb::fused_b200
