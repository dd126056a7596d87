#pragma once
// The call the judge times before any solution code is loaded, to learn what its outside clock adds to a call (the
// handshake, the launch, the stop event's wait, the context switches): one kernel of known length on the call's
// stream, whose output nobody reads.
#include <cuda_runtime.h>

namespace vlb {

inline constexpr long long kCalibrationKernelNs = 20'000;  // 20 us

// Enqueues the calibration kernel on `stream`.
void launch_calibration_call(cudaStream_t stream);

}  // namespace vlb
