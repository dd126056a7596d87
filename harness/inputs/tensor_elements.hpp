#pragma once
// One element of one input tensor, for the host and device generators (include only from harness/inputs).
#include <cuda_bf16.h>

#include <cstdint>

#include "harness/core/problem.hpp"
#include "harness/inputs/input_values.hpp"

namespace vlb::input_values {

// What the device kernel needs of a tensor, in plain values.
struct ElementRule {
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;      // FNV-1a of the tensor name
  float scale = 1.0f;            // 1 for hidden states, 0.02 for weights and biases
  bool random_positions = false;
  std::int64_t lang_seq = 0;     // for language_position_ids
  std::int64_t vision_seq = 0;   // for vision_grid_thw
};

VLB_HOST_DEVICE __nv_bfloat16 normal_element(const ElementRule& rule, std::uint64_t index) {
  const float z = standard_normal(rule.seed, rule.stream, index);
  return __float2bfloat16_rn(rule.scale == 1.0f ? z : VLB_FMUL(rule.scale, z));
}

// language_position_ids[b, i]
VLB_HOST_DEVICE std::int64_t language_position_element(const ElementRule& rule, std::uint64_t index) {
  if (rule.random_positions) return uniform_integer(rule.seed, rule.stream, index, kRandomPositionBound);
  return static_cast<std::int64_t>(index % static_cast<std::uint64_t>(rule.lang_seq));
}

// vision_grid_thw[b, i, c]
VLB_HOST_DEVICE std::int64_t grid_element(const ElementRule& rule, std::uint64_t index) {
  const std::int64_t component = static_cast<std::int64_t>(index % 3);
  const std::int64_t flat_token = static_cast<std::int64_t>(index / 3);
  const std::int64_t token = flat_token % rule.vision_seq;
  const std::int64_t batch = flat_token / rule.vision_seq;
  const GridThw thw = rule.random_positions ? random_grid_position(rule.seed, rule.stream, batch, token)
                                            : official_grid_position(token);
  return component == 0 ? thw.t : (component == 1 ? thw.h : thw.w);
}

}  // namespace vlb::input_values
