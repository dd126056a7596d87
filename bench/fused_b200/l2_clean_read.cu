#include "bench/fused_b200/l2_clean_read.hpp"

#include "harness/core/cuda_check.hpp"

namespace vlb::fused_b200::bench {
namespace {

__global__ void clean_read_kernel(const uint4* buffer, std::size_t vectors, unsigned* sink) {
  unsigned folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 value = buffer[i];
    folded ^= value.x ^ value.y ^ value.z ^ value.w;
  }
  // A store that depends on every thread's data keeps every thread's loads; it practically never happens.
  if (folded == 0x9e3779b9u) sink[blockIdx.x] = folded;
}

}  // namespace

void launch_clean_read(const void* buffer, std::size_t bytes, unsigned* sink, cudaStream_t stream) {
  clean_read_kernel<<<kCleanReadBlocks, 256, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / sizeof(uint4),
                                                          sink);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb::fused_b200::bench
