#pragma once
// The leaderboard's correctness rule: an element passes when |out - ref| <= atol + rtol * |ref|; the case passes when
// at least required_match_ratio of the elements pass; any NaN or Inf fails; an all-zero output against a non-zero
// reference fails; an optional cap on the maximum absolute error.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "harness/check/status.hpp"
#include "harness/core/problem.hpp"

namespace vlb {

struct ComparisonStats {
  std::int64_t elements = 0;
  std::int64_t matched = 0;             // elements within tolerance
  double matched_ratio = 0.0;
  double max_abs_error = 0.0;           // over finite elements
  double max_rel_error = 0.0;           // |out - ref| / |ref| over finite elements with ref != 0
  std::int64_t worst_index = -1;        // flat index of the element with the largest |out-ref| - (atol+rtol|ref|)
  double worst_output = 0.0;
  double worst_reference = 0.0;
  std::int64_t nan_count = 0;
  std::int64_t inf_count = 0;
  bool output_all_zero = false;
  bool reference_all_zero = false;
};

struct Verdict {
  CaseStatus status = CaseStatus::kPassed;
  std::string reason;  // empty when passed; else one line a user can act on
};

// Both on the device, elementwise over `elements` values; the stats come back to the host (synchronizes `stream`).
ComparisonStats compare_on_device(const __nv_bfloat16* output, const __nv_bfloat16* reference, std::int64_t elements,
                                  const Tolerance& tolerance, cudaStream_t stream);
// On the host (tests, CPU reference): the reference in double.
ComparisonStats compare_on_host(std::span<const __nv_bfloat16> output, std::span<const double> reference,
                                const Tolerance& tolerance);

Verdict judge(const ComparisonStats& stats, const Tolerance& tolerance,
              std::optional<double> max_abs_error_cap = std::nullopt);

}  // namespace vlb
