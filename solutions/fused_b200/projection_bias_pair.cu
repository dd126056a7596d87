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
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // A programmatic launch may have started before the kernel before it ended: end after it (at once otherwise).
  cudaGridDependencySynchronize();
#endif
}

}  // namespace

void launch_bias_pair(const bf16* first, const bf16* second, bf16* pair, cudaStream_t stream, LaunchOrder order) {
  const OrderedLaunchConfig launch(dim3(1), dim3(kThreads), 0, stream, order);
  VLB_CUDA_CHECK(cudaLaunchKernelEx(launch.get(), bias_pair_kernel, first, second, pair));
}

}  // namespace vlb::fused_b200
