// compare_on_host and judge: the leaderboard's correctness rule (see comparison.hpp).
#include <fmt/format.h>

#include <stdexcept>

#include "harness/check/comparison.hpp"
#include "harness/check/element_check.hpp"

namespace vlb {

ComparisonStats compare_on_host(std::span<const __nv_bfloat16> output, std::span<const double> reference,
                                const Tolerance& tolerance) {
  if (output.size() != reference.size()) {
    throw std::invalid_argument(fmt::format("compare_on_host: {} output elements against {} reference elements",
                                            output.size(), reference.size()));
  }
  check_detail::PartialStats stats;
  for (std::size_t i = 0; i < output.size(); ++i) {
    check_detail::accumulate(stats, __bfloat162float(output[i]), reference[i], static_cast<std::int64_t>(i),
                             tolerance.atol, tolerance.rtol);
  }
  return check_detail::to_comparison_stats(stats);
}

namespace {
Verdict incorrect(std::string reason) { return {CaseStatus::kIncorrectNumerical, std::move(reason)}; }

std::string non_finite_reason(const ComparisonStats& stats) {
  std::string reason;
  if (stats.nan_count > 0) reason = fmt::format("{} NaN elements", stats.nan_count);
  if (stats.inf_count > 0) {
    reason += fmt::format("{}{} Inf elements", reason.empty() ? "" : ", ", stats.inf_count);
  }
  return reason + fmt::format(" in the output (of {})", stats.elements);
}
}  // namespace

Verdict judge(const ComparisonStats& stats, const Tolerance& tolerance, std::optional<double> max_abs_error_cap) {
  if (stats.nan_count > 0 || stats.inf_count > 0) return incorrect(non_finite_reason(stats));
  if (stats.output_all_zero && !stats.reference_all_zero) {
    return incorrect(fmt::format("the output is all zero ({} elements) but the reference is not: was it written?",
                                 stats.elements));
  }
  if (stats.matched_ratio < tolerance.required_match_ratio) {
    return incorrect(fmt::format(
        "{:.4f}% of {} elements within tolerance (atol {}, rtol {}), {:.2f}% required; worst element {}: output {}, "
        "reference {}; max abs error {:.4g}",
        100.0 * stats.matched_ratio, stats.elements, tolerance.atol, tolerance.rtol,
        100.0 * tolerance.required_match_ratio, stats.worst_index, stats.worst_output, stats.worst_reference,
        stats.max_abs_error));
  }
  if (max_abs_error_cap && stats.max_abs_error > *max_abs_error_cap) {
    return incorrect(fmt::format("max abs error {:.4g} exceeds the cap {:.4g} (worst element {}: output {}, reference {})",
                                 stats.max_abs_error, *max_abs_error_cap, stats.worst_index, stats.worst_output,
                                 stats.worst_reference));
  }
  return {CaseStatus::kPassed, {}};
}

}  // namespace vlb
