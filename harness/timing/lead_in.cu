#include "harness/core/cuda_check.hpp"
#include "harness/timing/call_timer.hpp"
#include "harness/timing/global_timer.cuh"

namespace vlb {
namespace {

__global__ void lead_in_kernel(long long nanoseconds) {
  const unsigned long long start = read_global_timer_ns();
  while (read_global_timer_ns() - start < static_cast<unsigned long long>(nanoseconds)) {
  }
}

}  // namespace

void launch_lead_in(cudaStream_t stream, long long nanoseconds) {
  lead_in_kernel<<<1, 1, 0, stream>>>(nanoseconds);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb
