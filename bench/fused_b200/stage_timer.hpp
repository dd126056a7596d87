#pragma once
// A small cold-L2 timer for the stage benchmark: before every iteration the harness's L2Flusher writes twice the L2
// (outside the timed window), then CUDA events bracket the call; the median of the timed iterations.
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"
#include "harness/timing/l2_flusher.hpp"

namespace vlb::fused_b200::bench {

struct TimerSettings {
  int warmup_iterations = 5;
  int timed_iterations = 30;
  // After the memset flush, read another 2x-L2 buffer, so that the timed call finds clean lines in L2 rather than
  // the flush's dirty ones (whose write-back it would otherwise pay). Off: the harness's and the leaderboard's way.
  bool clean_l2 = false;
};

class ColdL2Timer {
 public:
  ColdL2Timer(const DeviceInfo& device, TimerSettings settings);
  ~ColdL2Timer();
  ColdL2Timer(const ColdL2Timer&) = delete;
  ColdL2Timer& operator=(const ColdL2Timer&) = delete;

  using Call = std::function<void(cudaStream_t)>;

  // Medians of one call: the event-timed window, and the host's time inside call() (argument set-up, TMA
  // descriptors, launch). Host time longer than the flush before it leaves the GPU idle inside the window.
  struct Timing {
    double gpu_us = 0;
    double host_us = 0;
  };

  // Median microseconds of call(stream).
  Timing median(const Call& call, cudaStream_t stream);

  // Medians of each call, timed in turns (call 0, 1, ..., 0, 1, ...), so that drifting clocks and power reach every
  // call alike: the ratios between them are what the benchmark reports.
  std::vector<Timing> interleaved_medians(const std::vector<Call>& calls, cudaStream_t stream);

  // Medians of the intervals a call measures itself (events between its stages, say): call(stream) enqueues the work,
  // waits for it and returns each interval's microseconds. Flushed before every iteration like the other calls.
  using IntervalCall = std::function<std::vector<double>(cudaStream_t)>;
  std::vector<double> interval_medians(const IntervalCall& call, cudaStream_t stream);

  // Median event-timed microseconds of the L2 flush itself.
  double flush_us(cudaStream_t stream);

 private:
  Timing time_once(const Call& call, int iteration, cudaStream_t stream);
  void flush(cudaStream_t stream, int iteration);
  // Microseconds between events recorded on `stream` before and after enqueue(stream).
  double event_us(const Call& enqueue, cudaStream_t stream);

  TimerSettings settings_;
  L2Flusher flusher_;
  DeviceBuffer clean_buffer_;  // read after the flush with clean_l2
  DeviceBuffer clean_sink_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace vlb::fused_b200::bench
