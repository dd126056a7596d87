#include "harness/timing/clocks.hpp"

#include <cstdint>

#include "harness/core/cuda_check.hpp"
#include "harness/timing/global_timer.cuh"

namespace vlb {
namespace {

__global__ void sm_clock_probe_kernel(unsigned long long duration_ns, unsigned long long* result) {
  const unsigned long long start_ns = read_global_timer_ns();
  const long long start_cycles = clock64();
  unsigned long long now_ns = start_ns;
  while (now_ns - start_ns < duration_ns) now_ns = read_global_timer_ns();
  const long long end_cycles = clock64();
  now_ns = read_global_timer_ns();
  result[0] = static_cast<unsigned long long>(end_cycles - start_cycles);
  result[1] = now_ns - start_ns;
}

}  // namespace

bool is_throttled(double probe_mhz, double max_sm_clock_mhz) {
  return max_sm_clock_mhz > 0 && probe_mhz < kThrottleFraction * max_sm_clock_mhz;
}

ClockTelemetry make_clock_telemetry(double before_mhz, double after_mhz, const DeviceInfo& device) {
  ClockTelemetry telemetry;
  telemetry.sm_clock_mhz_before = before_mhz;
  telemetry.sm_clock_mhz_after = after_mhz;
  telemetry.max_sm_clock_mhz = device.max_sm_clock_khz / 1000.0;
  telemetry.throttled = is_throttled(before_mhz, telemetry.max_sm_clock_mhz) ||
                        is_throttled(after_mhz, telemetry.max_sm_clock_mhz);
  return telemetry;
}

SmClockProbe::SmClockProbe() : result_(2 * sizeof(unsigned long long)) {}

double SmClockProbe::measure_mhz(cudaStream_t stream) {
  sm_clock_probe_kernel<<<1, 1, 0, stream>>>(kProbeDurationNs, result_.as<unsigned long long>());
  VLB_CHECK_LAUNCH();
  unsigned long long host_result[2] = {0, 0};
  VLB_CUDA_CHECK(cudaMemcpyAsync(host_result, result_.data(), sizeof(host_result), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_result[1] == 0) throw SystemError("SM clock probe: %globaltimer did not advance during the probe kernel");
  return static_cast<double>(host_result[0]) / static_cast<double>(host_result[1]) * 1000.0;
}

}  // namespace vlb
