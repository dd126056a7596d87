#pragma once
// Shared helpers of the reference tests: bf16 conversion of reference outputs and the tolerance of a workload.
#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "harness/core/problem.hpp"

namespace vlb::testing {

// Rounds reference values to bf16, as a solution's output would be stored.
std::vector<__nv_bfloat16> to_bf16(const std::vector<double>& values);

// The suite's tolerance: rtol 0.05, 99% of elements, and the given atol.
Tolerance workload_tolerance(double atol);

}  // namespace vlb::testing
