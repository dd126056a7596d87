// compare_on_device: one pass over the elements; per-block partial statistics merged on the host.
#include <vector>

#include "harness/check/comparison.hpp"
#include "harness/check/element_check.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"

namespace vlb {

namespace {
using check_detail::PartialStats;
constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__global__ void compare_kernel(const __nv_bfloat16* output, const __nv_bfloat16* reference, std::int64_t elements,
                               double atol, double rtol, PartialStats* block_partials) {
  // Raw storage: a __shared__ array of a type with member initializers cannot be declared directly.
  __shared__ alignas(PartialStats) unsigned char storage[sizeof(PartialStats) * kThreads];
  auto* partials = reinterpret_cast<PartialStats*>(storage);
  PartialStats mine;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < elements;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    check_detail::accumulate(mine, __bfloat162float(output[i]), __bfloat162float(reference[i]), i, atol, rtol);
  }
  partials[threadIdx.x] = mine;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) check_detail::merge(partials[threadIdx.x], partials[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) block_partials[blockIdx.x] = partials[0];
}
}  // namespace

ComparisonStats compare_on_device(const __nv_bfloat16* output, const __nv_bfloat16* reference, std::int64_t elements,
                                  const Tolerance& tolerance, cudaStream_t stream) {
  const auto wanted_blocks = (elements + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted_blocks < 1 ? 1 : (wanted_blocks > kMaxBlocks ? kMaxBlocks : wanted_blocks));
  DeviceBuffer partials(sizeof(PartialStats) * blocks);
  compare_kernel<<<blocks, kThreads, 0, stream>>>(output, reference, elements, tolerance.atol, tolerance.rtol,
                                                   partials.as<PartialStats>());
  VLB_CHECK_LAUNCH();
  std::vector<PartialStats> host(static_cast<std::size_t>(blocks));
  VLB_CUDA_CHECK(cudaMemcpyAsync(host.data(), partials.data(), partials.bytes(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  PartialStats total;
  for (const auto& partial : host) check_detail::merge(total, partial);
  return check_detail::to_comparison_stats(total);
}

}  // namespace vlb
