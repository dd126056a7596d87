#include "harness/report/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace vlb {

RankTestResult mann_whitney(std::span<const double> a, std::span<const double> b) {
  RankTestResult result;
  const double n_a = static_cast<double>(a.size()), n_b = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return result;
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (double value : a) pooled.emplace_back(value, true);
  for (double value : b) pooled.emplace_back(value, false);
  std::sort(pooled.begin(), pooled.end());

  // Midranks for ties; the tie term sum(t^3 - t) corrects the variance.
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t first = 0; first < pooled.size();) {
    std::size_t last = first;
    while (last + 1 < pooled.size() && pooled[last + 1].first == pooled[first].first) ++last;
    const double tied = static_cast<double>(last - first + 1);
    const double midrank = (static_cast<double>(first) + static_cast<double>(last)) / 2.0 + 1.0;
    for (std::size_t i = first; i <= last; ++i) rank_sum_a += pooled[i].second ? midrank : 0.0;
    tie_term += tied * tied * tied - tied;
    first = last + 1;
  }
  const double n = n_a + n_b;
  result.u = rank_sum_a - n_a * (n_a + 1.0) / 2.0;
  const double mean = n_a * n_b / 2.0;
  const double variance = n_a * n_b / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference
  const double deviation = std::abs(result.u - mean) - 0.5;
  result.z = std::max(deviation, 0.0) / std::sqrt(variance) * (result.u < mean ? -1.0 : 1.0);
  result.p_value = std::erfc(std::abs(result.z) / std::sqrt(2.0));
  return result;
}

}  // namespace vlb
