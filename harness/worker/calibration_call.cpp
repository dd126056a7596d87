#include "harness/worker/calibration_call.hpp"

#include "harness/timing/call_timer.hpp"

namespace vlb {

// The timer's own spin kernel (timing/lead_in.cu), of the calibration's length.
void launch_calibration_call(cudaStream_t stream) { launch_lead_in(stream, kCalibrationKernelNs); }

}  // namespace vlb
