#pragma once
// Times one solution call where it runs (in the worker, or in this process with --no-isolation): CUDA events around
// it on the caller's stream, and, where CUPTI traces, the GPU work it launched on every stream (read later, in one
// flush, since a flush per call slows the launches that follow it). Everything around the call (fresh inputs, the
// L2 flush, the checks) is the judge's business, not this one's.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/timing/cupti_span.hpp"

namespace vlb {

struct CallTiming {
  double event_ms = 0;
  std::uint64_t stop_observed_ns = 0;  // the CUPTI clock when the host saw the stop event complete (0: no CUPTI)
  int activity_index = -1;             // for activity(), where CUPTI recorded the call
};

inline constexpr long long kLeadInNs = 20'000;

// The lead-in kernel: one thread spinning for `nanoseconds` on `stream` (timing/lead_in.cu).
void launch_lead_in(cudaStream_t stream, long long nanoseconds);

class CallTimer {
 public:
  // Starts CUPTI tracing where it can (one recorder per process); events are always there.
  CallTimer();
  ~CallTimer();
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;

  bool cupti_available() const { return recorder_ != nullptr; }
  const std::string& cupti_unavailable_reason() const { return why_unavailable_; }

  // Queues a short lead-in kernel, records the start event, runs `call` (which enqueues on `stream`), records the stop
  // event, waits for it and then for the whole device, so that work the call left on another stream has finished
  // before the call counts as done. The lead-in keeps the GPU busy while the host launches the call's first kernel, as
  // a preceding L2 flush did: the window then times GPU work, not the host's launch latency (CUPTI's span never
  // counts it either).
  // CUPTI attributes the call's GPU work when `trace` is set. Whatever `call` throws propagates, after the device is
  // idle.
  CallTiming time(cudaStream_t stream, bool trace, const std::function<void()>& call);
  // The GPU activity of the traced calls, flushed once.
  std::vector<CallActivity> activities(const std::vector<int>& activity_indices);

 private:
  std::string why_unavailable_;  // before recorder_: start() writes it
  std::unique_ptr<CuptiSpanRecorder> recorder_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace vlb
