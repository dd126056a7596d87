#include "harness/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace vlb {
namespace {

// Percentile q in [0, 1] of sorted values, interpolating linearly between the order statistics at rank q*(n-1).
double interpolated_percentile(const std::vector<double>& sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double weight = rank - static_cast<double>(lower);
  return sorted[lower] + weight * (sorted[upper] - sorted[lower]);
}

double sample_stddev(const std::vector<double>& values, double mean) {
  if (values.size() < 2) return 0.0;
  double sum_squares = 0.0;
  for (const double value : values) sum_squares += (value - mean) * (value - mean);
  return std::sqrt(sum_squares / static_cast<double>(values.size() - 1));
}

}  // namespace

Statistics compute_statistics(std::span<const double> samples) {
  Statistics stats;
  if (samples.empty()) return stats;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  stats.count = sorted.size();
  stats.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  stats.median = interpolated_percentile(sorted, 0.5);
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.stddev = sample_stddev(sorted, stats.mean);
  stats.p10 = interpolated_percentile(sorted, 0.10);
  stats.p90 = interpolated_percentile(sorted, 0.90);
  return stats;
}

}  // namespace vlb
