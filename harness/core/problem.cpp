#include "harness/core/problem.hpp"

#include <array>
#include <string>

namespace vlb {

std::string describe(const ProblemShape& shape) {
  return "B=" + std::to_string(shape.batch) + " Lq=" + std::to_string(shape.lang_seq) +
         " Lv=" + std::to_string(shape.vision_seq);
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt64: return "int64";
  }
  return "unknown";
}

std::size_t dtype_bytes(DType dtype) { return dtype == DType::kBFloat16 ? 2 : 8; }

std::int64_t TensorSpec::elements() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

std::string_view tensor_name(TensorId id) {
  static constexpr std::array<std::string_view, kNumTensors> kNames = {
      "language_hidden_states", "vision_hidden_states", "language_position_ids", "vision_grid_thw",
      "q_proj_weight",          "q_proj_bias",          "k_proj_weight",         "k_proj_bias",
      "v_proj_weight",          "v_proj_bias",          "o_proj_weight",         "output"};
  return kNames[static_cast<int>(id)];
}

TensorSpec tensor_spec(TensorId id, const ProblemShape& s) {
  using D = ModelDims;
  const auto bf16 = DType::kBFloat16;
  switch (id) {
    case TensorId::kLanguageHiddenStates: return {id, tensor_name(id), bf16, {s.batch, s.lang_seq, D::kHidden}};
    case TensorId::kVisionHiddenStates: return {id, tensor_name(id), bf16, {s.batch, s.vision_seq, D::kHidden}};
    case TensorId::kLanguagePositionIds: return {id, tensor_name(id), DType::kInt64, {s.batch, s.lang_seq}};
    case TensorId::kVisionGridThw: return {id, tensor_name(id), DType::kInt64, {s.batch, s.vision_seq, D::kThwDim}};
    case TensorId::kQProjWeight: return {id, tensor_name(id), bf16, {D::kQProjDim, D::kHidden}};
    case TensorId::kQProjBias: return {id, tensor_name(id), bf16, {D::kQProjDim}};
    case TensorId::kKProjWeight: return {id, tensor_name(id), bf16, {D::kKvProjDim, D::kHidden}};
    case TensorId::kKProjBias: return {id, tensor_name(id), bf16, {D::kKvProjDim}};
    case TensorId::kVProjWeight: return {id, tensor_name(id), bf16, {D::kKvProjDim, D::kHidden}};
    case TensorId::kVProjBias: return {id, tensor_name(id), bf16, {D::kKvProjDim}};
    case TensorId::kOProjWeight: return {id, tensor_name(id), bf16, {D::kHidden, D::kQProjDim}};
    case TensorId::kOutput: return {id, tensor_name(id), bf16, {s.batch, s.lang_seq, D::kHidden}, true};
  }
  return {id, tensor_name(id), bf16, {}};
}

std::vector<TensorSpec> tensor_specs(const ProblemShape& shape) {
  std::vector<TensorSpec> specs;
  specs.reserve(kNumTensors);
  for (int i = 0; i < kNumTensors; ++i) specs.push_back(tensor_spec(static_cast<TensorId>(i), shape));
  return specs;
}

}  // namespace vlb
