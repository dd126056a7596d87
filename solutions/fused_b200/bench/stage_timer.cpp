#include "solutions/fused_b200/bench/stage_timer.hpp"

#include <algorithm>
#include <vector>

#include "harness/core/cuda_check.hpp"

namespace vlb::fused_b200::bench {

ColdL2Timer::ColdL2Timer(std::size_t l2_bytes, TimerSettings settings)
    : settings_(settings), flush_(2 * l2_bytes) {
  VLB_CUDA_CHECK(cudaEventCreate(&start_));
  VLB_CUDA_CHECK(cudaEventCreate(&stop_));
}

ColdL2Timer::~ColdL2Timer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

double ColdL2Timer::median_us(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) {
  std::vector<double> samples;
  for (int i = 0; i < settings_.warmup_iterations + settings_.timed_iterations; ++i) {
    // A different byte each time, so that no flush is ever a no-op on compressed or cached lines.
    VLB_CUDA_CHECK(cudaMemsetAsync(flush_.data(), i & 0xff, flush_.bytes(), stream));
    VLB_CUDA_CHECK(cudaEventRecord(start_, stream));
    call(stream);
    VLB_CUDA_CHECK(cudaEventRecord(stop_, stream));
    VLB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    VLB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    if (i >= settings_.warmup_iterations) samples.push_back(1000.0 * ms);
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace vlb::fused_b200::bench
