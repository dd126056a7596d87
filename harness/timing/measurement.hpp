#pragma once
// Timing of one solution call per iteration, L2 flushed before each (outside the timed window), as the leaderboard
// does. Measurement never prints: it returns a TimingResult that the report unit renders.
#include <cuda_runtime.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/device_info.hpp"
#include "harness/timing/statistics.hpp"

namespace vlb {

enum class TimerKind {
  kEvents,  // CUDA events around the call on the harness stream (default)
  kCupti,   // CUPTI activity span: first kernel start to last kernel end of the call, every stream (the leaderboard's)
};

struct AdaptiveStop {
  int min_samples = 20;
  double min_time_s = 0.5;         // of timed calls, summed
  double target_relative_noise = 0.01;  // stddev / mean
  double timeout_s = 30.0;         // wall clock for the whole measurement
  int max_samples = 10000;
  bool operator==(const AdaptiveStop&) const = default;
};

struct TimingSettings {
  int warmup_iterations = 10;
  int timed_iterations = 50;
  std::optional<AdaptiveStop> adaptive;  // set: ignore timed_iterations and stop by these criteria
  TimerKind timer = TimerKind::kEvents;
  bool flush_l2 = true;
  bool operator==(const TimingSettings&) const = default;
};

struct ClockTelemetry {
  double sm_clock_mhz_before = 0;   // measured by an in-kernel clock64/globaltimer probe
  double sm_clock_mhz_after = 0;
  double max_sm_clock_mhz = 0;      // the device's rated maximum
  bool throttled = false;           // a probe read well below the rated maximum (see clocks.hpp for the rule)
};

struct TimingResult {
  std::vector<double> samples_ms;          // of the chosen timer, one per timed iteration
  std::vector<double> event_samples_ms;    // always recorded
  std::vector<double> cupti_samples_ms;    // recorded where CUPTI is available (empty otherwise)
  Statistics stats;                        // of samples_ms
  std::string stop_reason;                 // "iterations", "min_samples+noise", "timeout", ...
  ClockTelemetry clocks;
  bool cupti_available = false;
  // REWARD_HACK findings: kernels that ran outside the events window, or a kernel set that changed between calls.
  std::vector<std::string> violations;
};

// The measured call for iteration `i` (enqueue on `stream`), an untimed preparation before it (e.g. fresh inputs at
// a fresh address; it runs before the L2 flush), and an untimed inspection after it, once the device is idle (e.g.
// guard zones): a returned violation ends the measurement and is recorded in TimingResult::violations.
using MeasuredCall = std::function<void(cudaStream_t stream, int iteration)>;
using PrepareCall = std::function<void(cudaStream_t stream, int iteration)>;
using InspectCall = std::function<std::optional<std::string>(cudaStream_t stream, int iteration, bool timed)>;

TimingResult measure(const MeasuredCall& call, const PrepareCall& prepare, const TimingSettings& settings,
                     const DeviceInfo& device, cudaStream_t stream, const InspectCall& inspect = nullptr);

}  // namespace vlb
