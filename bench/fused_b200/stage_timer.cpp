#include "bench/fused_b200/stage_timer.hpp"

#include <chrono>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/timing/statistics.hpp"
#include "bench/fused_b200/l2_clean_read.hpp"

namespace vlb::fused_b200::bench {

ColdL2Timer::ColdL2Timer(const DeviceInfo& device, TimerSettings settings)
    : settings_(settings),
      flusher_(device),
      clean_buffer_(settings.clean_l2 ? 2 * device.l2_bytes : 0),
      clean_sink_(settings.clean_l2 ? kCleanReadBlocks * sizeof(unsigned) : 0) {
  VLB_CUDA_CHECK(cudaEventCreate(&start_));
  VLB_CUDA_CHECK(cudaEventCreate(&stop_));
}

ColdL2Timer::~ColdL2Timer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

void ColdL2Timer::flush(cudaStream_t stream, int iteration) {
  flusher_.flush(stream, iteration);
  if (settings_.clean_l2) {
    launch_clean_read(clean_buffer_.data(), clean_buffer_.bytes(), clean_sink_.as<unsigned>(), stream);
  }
}

double ColdL2Timer::event_us(const Call& enqueue, cudaStream_t stream) {
  VLB_CUDA_CHECK(cudaEventRecord(start_, stream));
  enqueue(stream);
  VLB_CUDA_CHECK(cudaEventRecord(stop_, stream));
  VLB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  VLB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return 1000.0 * ms;
}

ColdL2Timer::Timing ColdL2Timer::time_once(const Call& call, int iteration, cudaStream_t stream) {
  flush(stream, iteration);
  double host_us = 0.0;
  const double gpu_us = event_us([&](cudaStream_t s) {
    const auto host_start = std::chrono::steady_clock::now();
    call(s);
    host_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - host_start).count();
  }, stream);
  return {gpu_us, host_us};
}

ColdL2Timer::Timing ColdL2Timer::median(const Call& call, cudaStream_t stream) {
  return interleaved_medians({call}, stream).front();
}

std::vector<ColdL2Timer::Timing> ColdL2Timer::interleaved_medians(const std::vector<Call>& calls,
                                                                   cudaStream_t stream) {
  std::vector<std::vector<double>> gpu_samples(calls.size());
  std::vector<std::vector<double>> host_samples(calls.size());
  int iteration = 0;
  for (int round = 0; round < settings_.warmup_iterations + settings_.timed_iterations; ++round) {
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const Timing timing = time_once(calls[c], iteration++, stream);
      if (round < settings_.warmup_iterations) continue;
      gpu_samples[c].push_back(timing.gpu_us);
      host_samples[c].push_back(timing.host_us);
    }
  }
  std::vector<Timing> medians;
  for (std::size_t c = 0; c < calls.size(); ++c) {
    medians.push_back({compute_statistics(gpu_samples[c]).median, compute_statistics(host_samples[c]).median});
  }
  return medians;
}

std::vector<double> ColdL2Timer::interval_medians(const IntervalCall& call, cudaStream_t stream) {
  std::vector<std::vector<double>> samples;
  for (int iteration = 0; iteration < settings_.warmup_iterations + settings_.timed_iterations; ++iteration) {
    flush(stream, iteration);
    const std::vector<double> intervals = call(stream);
    if (iteration < settings_.warmup_iterations) continue;
    samples.resize(intervals.size());
    for (std::size_t i = 0; i < intervals.size(); ++i) samples[i].push_back(intervals[i]);
  }
  std::vector<double> medians;
  for (const std::vector<double>& interval : samples) medians.push_back(compute_statistics(interval).median);
  return medians;
}

double ColdL2Timer::flush_us(cudaStream_t stream) {
  std::vector<double> samples;
  for (int iteration = 0; iteration < settings_.warmup_iterations + settings_.timed_iterations; ++iteration) {
    const double us = event_us([&](cudaStream_t s) { flush(s, iteration); }, stream);
    if (iteration >= settings_.warmup_iterations) samples.push_back(us);
  }
  return compute_statistics(samples).median;
}

}  // namespace vlb::fused_b200::bench
