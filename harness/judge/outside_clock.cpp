#include "harness/judge/outside_clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "harness/timing/statistics.hpp"

namespace vlb {
namespace {

// The interquartile range: the spread of the middle half, which a few slow calls do not move.
double interquartile_range(std::vector<double> values) {
  if (values.size() < 2) return 0.0;
  std::sort(values.begin(), values.end());
  const auto at = [&](double fraction) {
    const double position = fraction * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(position);
    const std::size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (values[above] - values[below]) * (position - static_cast<double>(below));
  };
  return at(0.75) - at(0.25);
}

std::vector<double> differences(std::span<const double> outside_ms, std::span<const double> inside_ms) {
  std::vector<double> result;
  for (std::size_t i = 0; i < std::min(outside_ms.size(), inside_ms.size()); ++i) result.push_back(outside_ms[i] - inside_ms[i]);
  return result;
}

}  // namespace

OutsideClockCalibration calibrate_outside_clock(std::span<const double> outside_ms, std::span<const double> event_ms,
                                                std::span<const double> cupti_ms) {
  OutsideClockCalibration calibration;
  const std::vector<double> over_events = differences(outside_ms, event_ms);
  const Statistics stats = compute_statistics(over_events);
  calibration.calls = static_cast<int>(over_events.size());
  calibration.overhead_ms = stats.median;
  calibration.spread_ms = interquartile_range(over_events);
  if (!cupti_ms.empty()) {
    const std::vector<double> over_cupti = differences(outside_ms, cupti_ms);
    calibration.cupti_overhead_ms = compute_statistics(over_cupti).median;
  }
  return calibration;
}

double outside_clock_slack_ms(const OutsideClockCalibration& calibration, double outside_median_ms,
                              std::size_t output_bytes) {
  constexpr double kResolutionMs = 0.002;
  // Measured (results/h200/judge/, results/h100/fused_b200/v27/b_second_form/): the calibration's median moves by
  // ~25 us from run to run. After a real call the judge's read-back of the output takes longer than after a
  // calibration call: by up to 5.4% of the call for fused_b200 on the H200, and on the H100 by 15-40 us at 2-8 MB of
  // output, 50-85 us at 16-17 MB, 100-150 us from 45 MB up (where 8% of the call covers it). The 50 us floor of
  // the first form left a 232 us call with 15.7 MB of output 9 us outside (an honest REWARD_HACK).
  constexpr double kSpreadFloorMs = 0.060;
  constexpr double kRealCallShare = 0.08;
  constexpr double kReadBackMsPerMB = 0.0015;
  constexpr double kReadBackCapMB = 64.0;
  const double call_ms = std::max(0.0, outside_median_ms - calibration.overhead_ms);  // the call, as the judge saw it
  const double output_mb = std::min(static_cast<double>(output_bytes) / 1e6, kReadBackCapMB);
  return std::max(3.0 * calibration.spread_ms, kSpreadFloorMs) + kRealCallShare * call_ms +
         kReadBackMsPerMB * output_mb + kResolutionMs;
}

std::optional<std::string> outside_clock_violation(double reported_median_ms, TimerKind timer,
                                                   double outside_median_ms, const OutsideClockCalibration& calibration,
                                                   std::size_t output_bytes) {
  const bool cupti = timer == TimerKind::kCupti && calibration.cupti_overhead_ms.has_value();
  const double overhead_ms = cupti ? *calibration.cupti_overhead_ms : calibration.overhead_ms;
  const double slack_ms = outside_clock_slack_ms(calibration, outside_median_ms, output_bytes);
  const double lowest_honest_ms = outside_median_ms - overhead_ms - slack_ms;
  if (reported_median_ms >= lowest_honest_ms) return std::nullopt;
  return fmt::format(
      "the worker reported a median of {:.4f} ms ({}), but the judge's own clock saw {:.4f} ms per call: less its "
      "calibrated overhead of {:.4f} ms and a slack of {:.4f} ms, no honest median lies below {:.4f} ms (a forged "
      "time, or work done outside the timed window)",
      reported_median_ms, cupti ? "CUPTI span" : "CUDA events", outside_median_ms, overhead_ms, slack_ms,
      lowest_honest_ms);
}

}  // namespace vlb
