#include "harness/suite/suite_axes.hpp"

#include <fmt/format.h>

#include <array>

namespace vlb::suite_detail {

namespace {
using D = ModelDims;
constexpr std::array<ExpectedAxis, 10> kExpectedAxes = {{
    {kBatchAxis, false, 0},
    {kLangSeqAxis, false, 0},
    {kVisionSeqAxis, false, 0},
    {"hidden_size", true, D::kHidden},
    {"num_attention_heads", true, D::kNumHeads},
    {"num_key_value_heads", true, D::kNumKvHeads},
    {"head_dim", true, D::kHeadDim},
    {"q_proj_dim", true, D::kQProjDim},
    {"kv_proj_dim", true, D::kKvProjDim},
    {"thw_dim", true, D::kThwDim},
}};
}  // namespace

std::span<const ExpectedAxis> expected_axes() { return kExpectedAxes; }

const ExpectedAxis* find_expected_axis(std::string_view name) {
  for (const ExpectedAxis& axis : kExpectedAxes) {
    if (axis.name == name) return &axis;
  }
  return nullptr;
}

std::optional<std::int64_t> variable_axis_value(std::string_view name, const ProblemShape& shape) {
  if (name == kBatchAxis) return shape.batch;
  if (name == kLangSeqAxis) return shape.lang_seq;
  if (name == kVisionSeqAxis) return shape.vision_seq;
  return std::nullopt;
}

std::optional<std::string> shape_limit_violation(const ProblemShape& shape, const AxisLimits& limits) {
  if (shape.batch <= 0 || shape.lang_seq <= 0 || shape.vision_seq <= 0) {
    return fmt::format("every axis must be positive, got {}", describe(shape));
  }
  if (shape.batch > limits.max_batch) {
    return fmt::format("{} = {} exceeds the limit of {}", kBatchAxis, shape.batch, limits.max_batch);
  }
  if (shape.lang_seq > limits.max_seq) {
    return fmt::format("{} = {} exceeds the limit of {}", kLangSeqAxis, shape.lang_seq, limits.max_seq);
  }
  if (shape.vision_seq > limits.max_seq) {
    return fmt::format("{} = {} exceeds the limit of {}", kVisionSeqAxis, shape.vision_seq, limits.max_seq);
  }
  // Checked after the per-axis limits, so that no product overflows: with the default limits a tensor has at most
  // 2^12 * 2^20 * 2^12 elements.
  for (const TensorSpec& spec : tensor_specs(shape)) {
    if (spec.elements() > limits.max_elements) {
      return fmt::format("{} would hold {} elements for {}, beyond the limit of {}", spec.name, spec.elements(),
                         describe(shape), limits.max_elements);
    }
  }
  return std::nullopt;
}

}  // namespace vlb::suite_detail
