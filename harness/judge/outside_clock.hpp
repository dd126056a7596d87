#pragma once
// The judge's own clock of every call: from its writing go (call_handshake.hpp) to its own copy of the call's
// output (the snapshot) having completed. It holds the worker's figure plus what the protocol adds around it (the
// handshake, the stop event's wait, the GPU's switches between the judge's and the worker's contexts, the snapshot),
// which the judge measures on calls of known work before any solution code is loaded: the calibration. A reported
// median below the judge's own median by more than the calibrated overhead and a slack is a forged figure
// (REWARD_HACK, both numbers in the reason). The slack is the margin a forgery has: docs/threat-model.md.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "harness/timing/measurement.hpp"

namespace vlb {

// How many calibration calls each case makes before its solution is loaded.
inline constexpr int kCalibrationCalls = 24;

struct OutsideClockCalibration {
  int calls = 0;
  double overhead_ms = 0;        // median of (outside - events)
  double spread_ms = 0;          // the interquartile range of (outside - events)
  std::optional<double> cupti_overhead_ms;  // median of (outside - CUPTI span), where CUPTI traced the calls
  bool operator==(const OutsideClockCalibration&) const = default;
};

// From the calibration calls' outside clock and the worker's figures for them (`cupti_ms` empty without CUPTI).
OutsideClockCalibration calibrate_outside_clock(std::span<const double> outside_ms, std::span<const double> event_ms,
                                                std::span<const double> cupti_ms);

// How far a reported median may lie below (outside median - overhead) before it is a forgery: three calibration
// interquartile ranges (at least 60 us: the calibration's median moves by ~25 us from run to run), 8% of the call as
// the judge saw it (outside median - overhead), 1.5 us per MB of the call's output up to 64 MB (the read-back after a
// real call costs more than after a calibration call, the more so the larger the output) and 2 us (the clocks'
// resolution). Set from every honest run under results/ (tests/judge/test_outside_clock.cpp replays them); this
// slack is the margin a forged median has: docs/threat-model.md gives it per case.
double outside_clock_slack_ms(const OutsideClockCalibration& calibration, double outside_median_ms,
                              std::size_t output_bytes);

// The REWARD_HACK reason when `reported_median_ms` (of `timer`) is below the judge's view, else nullopt.
std::optional<std::string> outside_clock_violation(double reported_median_ms, TimerKind timer,
                                                   double outside_median_ms, const OutsideClockCalibration& calibration,
                                                   std::size_t output_bytes);

}  // namespace vlb
