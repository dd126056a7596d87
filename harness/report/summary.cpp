// The run summary: counts by status and the means a reader compares runs by.
#include <cmath>

#include "harness/report/results.hpp"

namespace vlb {

namespace {

// Averages the finite values it is given; nullopt when none were.
class MeanOf {
 public:
  void add(double value) {
    if (!std::isfinite(value)) return;
    sum_ += value;
    ++count_;
  }
  void add(const std::optional<double>& value) {
    if (value) add(*value);
  }
  std::optional<double> mean() const {
    if (count_ == 0) return std::nullopt;
    return sum_ / static_cast<double>(count_);
  }

 private:
  double sum_ = 0;
  int count_ = 0;
};

}  // namespace

SummaryRecord summarize(const std::vector<CaseResult>& cases, double wall_time_s) {
  SummaryRecord summary;
  summary.cases = static_cast<int>(cases.size());
  summary.latency_statistic = "median";
  summary.wall_time_s = wall_time_s;
  MeanOf latency, score, sol_fraction;
  for (const CaseResult& result : cases) {
    summary.passed += result.status == CaseStatus::kPassed;
    summary.failed += is_failure(result.status);
    summary.skipped += result.status == CaseStatus::kSkipped;
    if (result.timing && result.timing->stats.count > 0) latency.add(result.timing->stats.median);
    score.add(result.score);
    sol_fraction.add(result.sol_fraction);
  }
  summary.mean_latency_ms = latency.mean();
  summary.mean_score = score.mean();
  summary.mean_sol_fraction = sol_fraction.mean();
  return summary;
}

}  // namespace vlb
