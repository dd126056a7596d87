#pragma once
// Helpers shared by the two CPU references (internal to reference/).
#include <cuda_bf16.h>

#include <cstdint>
#include <span>
#include <vector>

#include "harness/inputs/input_set.hpp"

namespace vlb::reference::cpu {

// bf16 -> float is exact.
std::vector<float> to_float(std::span<const bf16> values);

// y[r, o] = sum_k x[r, k] * w[o, k] for x [rows, in] and w [out, in], accumulated in double (parallel over r, o).
std::vector<double> linear_double(const std::vector<float>& x, std::int64_t rows, const std::vector<float>& w,
                                  std::int64_t out_dim, std::int64_t in_dim);

// The same product with double operands (the exact path's attention output times Wo).
std::vector<double> linear_double(const std::vector<double>& x, std::int64_t rows, const std::vector<float>& w,
                                  std::int64_t out_dim, std::int64_t in_dim);

float round_to_bf16(double value);  // through fp32, as a GPU writing bf16 from an fp32 accumulator would

}  // namespace vlb::reference::cpu
