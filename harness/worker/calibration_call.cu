#include "harness/core/cuda_check.hpp"
#include "harness/timing/global_timer.cuh"
#include "harness/worker/calibration_call.hpp"

namespace vlb {
namespace {

__global__ void spin_for(long long nanoseconds) {
  const unsigned long long start = read_global_timer_ns();
  while (read_global_timer_ns() - start < static_cast<unsigned long long>(nanoseconds)) {
  }
}

}  // namespace

void launch_calibration_call(cudaStream_t stream) {
  spin_for<<<1, 32, 0, stream>>>(kCalibrationKernelNs);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb
