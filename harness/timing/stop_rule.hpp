#pragma once
// When a case's timed loop has enough samples: after a fixed number of timed calls, or, for the adaptive stop, once
// the samples meet the noise target (with a minimum count and time) or a cap (samples, wall time) is reached.
#include <optional>
#include <string>

#include "harness/timing/measurement.hpp"

namespace vlb {

// UsageError naming the setting that makes no sense (negative warm-up, no timed call, an adaptive stop that cannot be
// met).
void validate_timing_settings(const TimingSettings& settings);

class StopRule {
 public:
  explicit StopRule(const TimingSettings& settings) : settings_(settings) {}
  // One more sample of the chosen timer.
  void add(double sample_ms);
  // The criterion that ends the loop now ("iterations", "min_samples+min_time+noise", "max_samples", "timeout"), or
  // nullopt to go on. `wall_s`: the loop's wall time so far.
  std::optional<std::string> reason(double wall_s) const;

 private:
  const TimingSettings& settings_;
  long long count_ = 0;
  double mean_ = 0, sum_squares_ = 0, total_ms_ = 0;  // running mean and variance (Welford)
};

}  // namespace vlb
