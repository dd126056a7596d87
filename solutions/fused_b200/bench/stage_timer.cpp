#include "solutions/fused_b200/bench/stage_timer.hpp"

#include <algorithm>
#include <vector>

#include "harness/core/cuda_check.hpp"

namespace vlb::fused_b200::bench {
namespace {

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace

ColdL2Timer::ColdL2Timer(std::size_t l2_bytes, TimerSettings settings)
    : settings_(settings), flush_(2 * l2_bytes) {
  VLB_CUDA_CHECK(cudaEventCreate(&start_));
  VLB_CUDA_CHECK(cudaEventCreate(&stop_));
}

ColdL2Timer::~ColdL2Timer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

double ColdL2Timer::time_once_us(const Call& call, int iteration, cudaStream_t stream) {
  // A different byte each time, so that no flush is ever a no-op on compressed or cached lines.
  VLB_CUDA_CHECK(cudaMemsetAsync(flush_.data(), iteration & 0xff, flush_.bytes(), stream));
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
  for (const std::vector<double>& s : samples) medians.push_back(median(s));
  return medians;
}

}  // namespace vlb::fused_b200::bench
