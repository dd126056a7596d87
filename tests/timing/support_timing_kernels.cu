#include "support_timing_kernels.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/timing/global_timer.cuh"

namespace vlb::testing {
namespace {

__device__ void spin_for(unsigned long long duration_ns) {
  const unsigned long long start = read_global_timer_ns();
  while (read_global_timer_ns() - start < duration_ns) {
  }
}

__global__ void spin_kernel(unsigned long long duration_ns) { spin_for(duration_ns); }
__global__ void other_spin_kernel(unsigned long long duration_ns) { spin_for(duration_ns); }

constexpr int kReadThreads = 256;

__global__ void read_sum_kernel(const uint4* data, std::size_t vectors, unsigned long long* sum) {
  unsigned long long partial = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 value = data[i];
    partial += static_cast<unsigned long long>(value.x) + value.y + value.z + value.w;
  }
  for (int offset = 16; offset > 0; offset /= 2) partial += __shfl_down_sync(0xffffffffu, partial, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, partial);
}

unsigned long long to_ns(double duration_us) { return static_cast<unsigned long long>(duration_us * 1000.0); }

}  // namespace

void launch_spin_kernel(cudaStream_t stream, double duration_us) {
  spin_kernel<<<1, 1, 0, stream>>>(to_ns(duration_us));
  VLB_CHECK_LAUNCH();
}

void launch_other_spin_kernel(cudaStream_t stream, double duration_us) {
  other_spin_kernel<<<1, 1, 0, stream>>>(to_ns(duration_us));
  VLB_CHECK_LAUNCH();
}

void launch_read_sum_kernel(cudaStream_t stream, const std::uint32_t* data, std::size_t words, int sm_count,
                            unsigned long long* sum) {
  const std::size_t vectors = words / 4;  // callers pass a multiple of 4 words
  read_sum_kernel<<<sm_count * 8, kReadThreads, 0, stream>>>(reinterpret_cast<const uint4*>(data), vectors, sum);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb::testing
