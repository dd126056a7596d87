#pragma once
// The Mann-Whitney U test (Wilcoxon rank-sum) on two samples of latencies: do they come from one distribution? Used by
// `vlbench compare` on the raw timing samples, so that a verdict rests on every sample rather than on two medians.
#include <span>

namespace vlb {

struct RankTestResult {
  double u = 0;        // U statistic of the first sample
  double z = 0;        // standardized, with tie and continuity corrections
  double p_value = 1;  // two-sided, normal approximation (fine from about 8 samples a side); 1 when either is empty
};

RankTestResult mann_whitney(std::span<const double> a, std::span<const double> b);

}  // namespace vlb
