#pragma once
// Clock telemetry: the SM clock measured inside a kernel, never set. One thread spins for kProbeDurationNs reading
// clock64() (SM cycles) and %globaltimer (nanoseconds); SM MHz = cycles / ns * 1000.
//
// Throttling rule: a probe is "throttled" when it reads below kThrottleFraction (90%) of the device's rated maximum SM
// clock (cudaDevAttrClockRate, DeviceInfo::max_sm_clock_khz). A run is flagged when either probe (just before or just
// after the timed loop) is throttled. Unlocked GPUs under heavy load may legitimately run a little below the maximum;
// 10% below points at power or thermal limits, or at clocks locked low by someone else.
#include <cuda_runtime.h>

#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {

inline constexpr double kThrottleFraction = 0.90;
inline constexpr unsigned long long kProbeDurationNs = 1'500'000;  // 1.5 ms: long against the timer's resolution

bool is_throttled(double probe_mhz, double max_sm_clock_mhz);
ClockTelemetry make_clock_telemetry(double before_mhz, double after_mhz, const DeviceInfo& device);

class SmClockProbe {
 public:
  SmClockProbe();
  // Runs the probe kernel on `stream` and waits for it; the SM clock in MHz.
  double measure_mhz(cudaStream_t stream);

 private:
  DeviceBuffer result_;  // [cycles, nanoseconds]
};

}  // namespace vlb
