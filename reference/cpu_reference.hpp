#pragma once
// CPU references for small shapes (tests, and cross-checking the GPU reference).
//   exact:    double precision throughout, no intermediate rounding (the math of docs/operation.md, steps 1-6).
//   faithful: the reference's bf16 rounding points reproduced (docs/operation.md: Q/K/V, cos/sin, each RoPE product and sum,
//             scores, the scaled scores, probabilities, O and the output rounded to bf16).
#include <vector>

#include "harness/inputs/input_set.hpp"

namespace vlb::reference {

std::vector<double> exact_output_cpu(const HostInputs& inputs);     // [B, Lq, 4096]
std::vector<double> faithful_output_cpu(const HostInputs& inputs);  // [B, Lq, 4096], every value a bf16

}  // namespace vlb::reference
