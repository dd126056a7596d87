#include "support_reference_inputs.hpp"

namespace vlb::testing {

std::vector<__nv_bfloat16> to_bf16(const std::vector<double>& values) {
  std::vector<__nv_bfloat16> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = __float2bfloat16_rn(static_cast<float>(values[i]));
  return result;
}

Tolerance workload_tolerance(double atol) {
  Tolerance tolerance;
  tolerance.atol = atol;
  tolerance.rtol = 0.05;
  tolerance.required_match_ratio = 0.99;
  return tolerance;
}

}  // namespace vlb::testing
