#pragma once
// An independent double-precision reference of one projection output (GEMM + bias + RoPE + scale) for chosen rows,
// written from docs/operation.md rather than from epilogue_math.hpp, and an element-wise checker of device rows against it.
#include <cuda_bf16.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vlb::fused_b200::testing {

enum class ReferenceRope { kNone, kLanguage, kVision };

struct ReferenceProjection {
  std::span<const __nv_bfloat16> activations;   // [rows, in_features]
  std::span<const __nv_bfloat16> weight;        // [out_features, in_features]
  std::span<const __nv_bfloat16> bias;          // [out_features] or empty
  std::span<const std::int64_t> positions;      // [rows] (language) or [rows, 3] (vision) or empty
  std::int64_t in_features = 0;
  std::int64_t out_features = 0;
  ReferenceRope rope = ReferenceRope::kNone;
  double scale = 1.0;
};

// Row-major [rows_to_check.size(), out_features].
std::vector<double> reference_rows(const ReferenceProjection& projection, std::span<const std::int64_t> rows);

// Every row when there are few; else the first, the last tile's rows (ragged end) and seeded random ones.
std::vector<std::int64_t> rows_to_check(std::int64_t rows, std::uint64_t seed);

// The chosen rows of a device output [rows, ld].
std::vector<__nv_bfloat16> download_rows(const __nv_bfloat16* device_output, std::int64_t ld,
                                         std::span<const std::int64_t> rows, std::int64_t columns);

struct RowCheck {
  std::int64_t elements = 0;
  std::int64_t failed = 0;          // outside atol + rtol*|ref|, NaN or Inf included
  double max_abs_error = 0.0;
  std::string worst;                // "row r col c: out x ref y"
};
RowCheck check_rows(std::span<const __nv_bfloat16> output, std::span<const double> reference,
                    std::span<const std::int64_t> rows, std::int64_t columns, double atol, double rtol);

}  // namespace vlb::fused_b200::testing
