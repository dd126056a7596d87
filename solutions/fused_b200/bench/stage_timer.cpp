#include "solutions/fused_b200/bench/stage_timer.hpp"

#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/timing/statistics.hpp"

namespace vlb::fused_b200::bench {

ColdL2Timer::ColdL2Timer(const DeviceInfo& device, TimerSettings settings) : settings_(settings), flusher_(device) {
  VLB_CUDA_CHECK(cudaEventCreate(&start_));
  VLB_CUDA_CHECK(cudaEventCreate(&stop_));
}

ColdL2Timer::~ColdL2Timer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

double ColdL2Timer::time_once_us(const Call& call, int iteration, cudaStream_t stream) {
  flusher_.flush(stream, iteration);
  VLB_CUDA_CHECK(cudaEventRecord(start_, stream));
  call(stream);
  VLB_CUDA_CHECK(cudaEventRecord(stop_, stream));
  VLB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  VLB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return 1000.0 * ms;
}

double ColdL2Timer::median_us(const Call& call, cudaStream_t stream) {
  return interleaved_medians_us({call}, stream).front();
}

std::vector<double> ColdL2Timer::interleaved_medians_us(const std::vector<Call>& calls, cudaStream_t stream) {
  std::vector<std::vector<double>> samples(calls.size());
  int iteration = 0;
  for (int round = 0; round < settings_.warmup_iterations + settings_.timed_iterations; ++round) {
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const double us = time_once_us(calls[c], iteration++, stream);
      if (round >= settings_.warmup_iterations) samples[c].push_back(us);
    }
  }
  std::vector<double> medians;
  for (const std::vector<double>& s : samples) medians.push_back(compute_statistics(s).median);
  return medians;
}

}  // namespace vlb::fused_b200::bench
