#pragma once
// The timing settings and what a case's timing yields. The judge runs the loop (judge/case_session.cpp: fresh inputs
// and the L2 flush before each call, outside the timed window, as the leaderboard does); the call is timed where it
// runs (call_timer.hpp); stop_rule.hpp decides when enough samples are in. Measurement never prints: the report unit
// renders a TimingResult.
#include <cuda_runtime.h>

#include <cstdint>
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

// The judge's check of one timed call against the reference for its own inputs.
struct TimedCallCheck {
  std::uint64_t seed = 0;
  double matched_ratio = 0;
  double max_abs_error = 0;
  bool operator==(const TimedCallCheck&) const = default;
};

// The calibration of the judge's outside clock for a case (judge/outside_clock.hpp), and the slack it allowed.
struct OutsideClockRecord {
  int calibration_calls = 0;
  double overhead_ms = 0;
  double spread_ms = 0;
  std::optional<double> cupti_overhead_ms;
  double slack_ms = 0;
  bool operator==(const OutsideClockRecord&) const = default;
};

// One kernel (or memcpy, memset) of the timed calls, in launch order: timing/kernel_breakdown.hpp.
struct KernelShare {
  std::string name;                  // demangled and shortened
  std::vector<int> grid, block;      // x, y, z (empty for a memcpy or memset)
  double median_ms = 0;
  double share = 0;                  // of the median span
  bool operator==(const KernelShare&) const = default;
};

struct KernelBreakdown {
  int calls = 0;                     // timed calls it is the median of
  double span_ms = 0;                // median CUPTI span
  std::vector<KernelShare> kernels;
  std::vector<double> gaps_ms;       // median gap before kernel i + 1 (negative: an overlap)
  double gaps_total_ms = 0;          // the sum of gaps_ms
  bool operator==(const KernelBreakdown&) const = default;
};

struct TimingResult {
  std::vector<double> samples_ms;          // of the chosen timer, one per timed iteration
  std::vector<double> event_samples_ms;    // always recorded (the worker's CUDA events)
  std::vector<double> cupti_samples_ms;    // recorded where CUPTI is available (empty otherwise)
  std::vector<double> outside_samples_ms;  // the judge's own clock of each timed call (go -> its read of the output)
  std::optional<OutsideClockRecord> outside_clock;  // its calibration (isolation only)
  std::vector<TimedCallCheck> judged_calls;         // every timed call, judged against the reference
  std::optional<KernelBreakdown> breakdown;         // per kernel, where CUPTI traced the timed calls
  Statistics stats;                        // of samples_ms
  std::string stop_reason;                 // "iterations", "min_samples+noise", "timeout", ...
  ClockTelemetry clocks;
  bool cupti_available = false;
  // REWARD_HACK findings: kernels that ran outside the events window, or a kernel set that changed between calls.
  std::vector<std::string> violations;
};

}  // namespace vlb
