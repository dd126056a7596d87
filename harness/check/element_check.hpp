#pragma once
// The per-element tolerance test and the associative merge of partial results, shared by the host and the device
// comparison so that both give the same statistics for the same values (no FMA contraction on either side).
#include <cstdint>

#include "harness/check/comparison.hpp"

#if defined(__CUDACC__)
#define VLB_CHECK_HD __host__ __device__ inline
#else
#define VLB_CHECK_HD inline
#endif

namespace vlb::check_detail {

#if defined(__CUDA_ARCH__)
VLB_CHECK_HD double mul_rn(double a, double b) { return __dmul_rn(a, b); }
VLB_CHECK_HD double add_rn(double a, double b) { return __dadd_rn(a, b); }
#else
VLB_CHECK_HD double mul_rn(double a, double b) { return a * b; }
VLB_CHECK_HD double add_rn(double a, double b) { return a + b; }
#endif

VLB_CHECK_HD double infinity() { return __builtin_huge_val(); }

struct PartialStats {
  std::int64_t elements = 0;
  std::int64_t matched = 0;
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  double worst_excess = -infinity();  // any element beats it
  std::int64_t worst_index = -1;
  double worst_output = 0.0;
  double worst_reference = 0.0;
  int output_nonzero = 0;
  int reference_nonzero = 0;
};

VLB_CHECK_HD bool is_nan(double x) { return x != x; }
VLB_CHECK_HD bool is_inf(double x) { return x == infinity() || x == -infinity(); }

// (excess, index) ordered by larger excess first, then smaller index: deterministic whatever the merge order.
VLB_CHECK_HD bool worse_than(double excess, std::int64_t index, const PartialStats& current) {
  if (current.worst_index < 0) return true;
  if (excess > current.worst_excess) return true;
  return excess == current.worst_excess && index < current.worst_index;
}

VLB_CHECK_HD void accumulate(PartialStats& s, double output, double reference, std::int64_t index, double atol,
                             double rtol) {
  s.elements += 1;
  if (output != 0.0) s.output_nonzero = 1;
  if (reference != 0.0) s.reference_nonzero = 1;
  const double magnitude = reference < 0.0 ? -reference : reference;
  const double allowed = add_rn(atol, mul_rn(rtol, magnitude));
  double excess;
  if (is_nan(output) || is_inf(output)) {
    s.nan_count += is_nan(output) ? 1 : 0;
    s.inf_count += is_inf(output) ? 1 : 0;
    excess = infinity();
  } else {
    const double difference = output - reference;
    const double error = difference < 0.0 ? -difference : difference;
    if (error <= allowed) s.matched += 1;
    if (error > s.max_abs_error) s.max_abs_error = error;
    if (reference != 0.0 && error / magnitude > s.max_rel_error) s.max_rel_error = error / magnitude;
    excess = error - allowed;
  }
  if (!is_nan(excess) && worse_than(excess, index, s)) {
    s.worst_excess = excess;
    s.worst_index = index;
    s.worst_output = output;
    s.worst_reference = reference;
  }
}

VLB_CHECK_HD void merge(PartialStats& into, const PartialStats& other) {
  into.elements += other.elements;
  into.matched += other.matched;
  into.nan_count += other.nan_count;
  into.inf_count += other.inf_count;
  if (other.max_abs_error > into.max_abs_error) into.max_abs_error = other.max_abs_error;
  if (other.max_rel_error > into.max_rel_error) into.max_rel_error = other.max_rel_error;
  if (other.worst_index >= 0 && worse_than(other.worst_excess, other.worst_index, into)) {
    into.worst_excess = other.worst_excess;
    into.worst_index = other.worst_index;
    into.worst_output = other.worst_output;
    into.worst_reference = other.worst_reference;
  }
  into.output_nonzero |= other.output_nonzero;
  into.reference_nonzero |= other.reference_nonzero;
}

inline ComparisonStats to_comparison_stats(const PartialStats& partial) {
  ComparisonStats stats;
  stats.elements = partial.elements;
  stats.matched = partial.matched;
  stats.matched_ratio =
      partial.elements > 0 ? static_cast<double>(partial.matched) / static_cast<double>(partial.elements) : 0.0;
  stats.max_abs_error = partial.max_abs_error;
  stats.max_rel_error = partial.max_rel_error;
  stats.worst_index = partial.worst_index;
  stats.worst_output = partial.worst_output;
  stats.worst_reference = partial.worst_reference;
  stats.nan_count = partial.nan_count;
  stats.inf_count = partial.inf_count;
  stats.output_all_zero = partial.elements > 0 && partial.output_nonzero == 0;
  stats.reference_all_zero = partial.elements > 0 && partial.reference_nonzero == 0;
  return stats;
}

}  // namespace vlb::check_detail
