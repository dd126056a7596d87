#include "harness/timing/call_timer.hpp"

#include "harness/core/cuda_check.hpp"

namespace vlb {

CallTimer::CallTimer() : recorder_(CuptiSpanRecorder::start(why_unavailable_)) {
  // One launch now, so that no timed call pays for loading the lead-in kernel (CUDA loads modules lazily).
  launch_lead_in(nullptr, 0);
  VLB_CUDA_CHECK(cudaDeviceSynchronize());
  VLB_CUDA_CHECK(cudaEventCreate(&start_));
  VLB_CUDA_CHECK(cudaEventCreate(&stop_));
}

CallTimer::~CallTimer() {
  (void)cudaEventDestroy(start_);
  (void)cudaEventDestroy(stop_);
}

CallTiming CallTimer::time(cudaStream_t stream, bool trace, const std::function<void()>& call) {
  CallTiming timing;
  const bool traced = trace && recorder_ != nullptr;
  launch_lead_in(stream, kLeadInNs);
  VLB_CUDA_CHECK(cudaEventRecord(start_, stream));
  if (traced) timing.activity_index = recorder_->open_call();
  try {
    call();
  } catch (...) {
    if (traced) recorder_->close_call();
    (void)cudaDeviceSynchronize();
    throw;
  }
  if (traced) recorder_->close_call();
  VLB_CUDA_CHECK(cudaGetLastError());
  VLB_CUDA_CHECK(cudaEventRecord(stop_, stream));
  VLB_CUDA_CHECK(cudaEventSynchronize(stop_));
  if (traced) timing.stop_observed_ns = recorder_->now_ns();
  VLB_CUDA_CHECK(cudaDeviceSynchronize());
  float elapsed_ms = 0;
  VLB_CUDA_CHECK(cudaEventElapsedTime(&elapsed_ms, start_, stop_));
  timing.event_ms = elapsed_ms;
  return timing;
}

std::vector<CallActivity> CallTimer::activities(const std::vector<int>& activity_indices) {
  std::vector<CallActivity> found;
  if (recorder_ == nullptr) return found;
  recorder_->flush();
  for (const int index : activity_indices) found.push_back(recorder_->call_activity(index));
  return found;
}

}  // namespace vlb
