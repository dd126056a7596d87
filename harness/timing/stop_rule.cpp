#include "harness/timing/stop_rule.hpp"

#include <fmt/format.h>

#include <cmath>

#include "harness/core/errors.hpp"

namespace vlb {

void validate_timing_settings(const TimingSettings& settings) {
  if (settings.warmup_iterations < 0) throw UsageError("timing: warm-up iterations must be >= 0");
  if (!settings.adaptive && settings.timed_iterations < 1) throw UsageError("timing: timed iterations must be >= 1");
  if (settings.adaptive) {
    const AdaptiveStop& stop = *settings.adaptive;
    if (stop.min_samples < 1 || stop.max_samples < stop.min_samples) {
      throw UsageError(fmt::format("timing: adaptive stop needs 1 <= min_samples ({}) <= max_samples ({})",
                                   stop.min_samples, stop.max_samples));
    }
    if (stop.min_time_s < 0 || stop.timeout_s <= 0 || stop.target_relative_noise <= 0) {
      throw UsageError("timing: adaptive stop needs min_time >= 0, timeout > 0 and target relative noise > 0");
    }
  }
}

void StopRule::add(double sample_ms) {
  ++count_;
  const double delta = sample_ms - mean_;
  mean_ += delta / static_cast<double>(count_);
  sum_squares_ += delta * (sample_ms - mean_);
  total_ms_ += sample_ms;
}

std::optional<std::string> StopRule::reason(double wall_s) const {
  if (!settings_.adaptive) {
    return count_ >= settings_.timed_iterations ? std::optional<std::string>("iterations") : std::nullopt;
  }
  const AdaptiveStop& stop = *settings_.adaptive;
  const double noise = count_ < 2 || mean_ <= 0 ? 0.0 : std::sqrt(sum_squares_ / static_cast<double>(count_ - 1)) / mean_;
  if (count_ >= stop.min_samples && total_ms_ * 1e-3 >= stop.min_time_s && noise <= stop.target_relative_noise) {
    return "min_samples+min_time+noise";
  }
  if (count_ >= stop.max_samples) return "max_samples";
  if (wall_s >= stop.timeout_s) return "timeout";
  return std::nullopt;
}

}  // namespace vlb
