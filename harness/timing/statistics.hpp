#pragma once
// Summary statistics of timing samples (milliseconds).
#include <cstddef>
#include <span>

namespace vlb {

struct Statistics {
  std::size_t count = 0;
  double mean = 0, median = 0, min = 0, max = 0, stddev = 0, p10 = 0, p90 = 0;
  double relative_noise() const { return mean > 0 ? stddev / mean : 0.0; }  // coefficient of variation
};

// Percentiles by linear interpolation between order statistics; stddev is the sample (n-1) one. Empty -> all zero.
Statistics compute_statistics(std::span<const double> samples);

}  // namespace vlb
