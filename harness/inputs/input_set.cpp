#include "harness/inputs/input_set.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace vlb {

std::span<const bf16> HostInputs::bf16_tensor(TensorId id) const {
  const auto& bytes = tensors[static_cast<int>(id)];
  if (tensor_spec(id, shape).dtype != DType::kBFloat16) throw std::invalid_argument("not a bf16 tensor");
  return {reinterpret_cast<const bf16*>(bytes.data()), bytes.size() / sizeof(bf16)};
}

std::span<const std::int64_t> HostInputs::int64_tensor(TensorId id) const {
  const auto& bytes = tensors[static_cast<int>(id)];
  if (tensor_spec(id, shape).dtype != DType::kInt64) throw std::invalid_argument("not an int64 tensor");
  return {reinterpret_cast<const std::int64_t*>(bytes.data()), bytes.size() / sizeof(std::int64_t)};
}

HostInputs make_host_inputs(const ProblemShape& shape, const InputSettings& settings) {
  HostInputs inputs;
  inputs.shape = shape;
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    inputs.tensors[i].resize(tensor_spec(id, shape).bytes());
    generate_tensor_on_host(id, shape, settings, inputs.tensors[i]);
  }
  return inputs;
}

namespace {
template <class T, int Rank>
TensorRef<const T, Rank> typed(const void* pointer, const TensorSpec& spec) {
  if (spec.shape.size() != static_cast<std::size_t>(Rank)) throw std::logic_error("rank mismatch for " + std::string(spec.name));
  TensorRef<const T, Rank> ref;
  ref.data = static_cast<const T*>(pointer);
  for (int d = 0; d < Rank; ++d) ref.shape[d] = spec.shape[d];
  return ref;
}
}  // namespace

FusionInputs make_fusion_inputs(const ProblemShape& shape, const std::array<const void*, kNumInputs>& p) {
  auto spec = [&](TensorId id) { return tensor_spec(id, shape); };
  auto at = [&](TensorId id) { return p[static_cast<int>(id)]; };
  FusionInputs in;
  in.language_hidden_states = typed<bf16, 3>(at(TensorId::kLanguageHiddenStates), spec(TensorId::kLanguageHiddenStates));
  in.vision_hidden_states = typed<bf16, 3>(at(TensorId::kVisionHiddenStates), spec(TensorId::kVisionHiddenStates));
  in.language_position_ids =
      typed<std::int64_t, 2>(at(TensorId::kLanguagePositionIds), spec(TensorId::kLanguagePositionIds));
  in.vision_grid_thw = typed<std::int64_t, 3>(at(TensorId::kVisionGridThw), spec(TensorId::kVisionGridThw));
  in.q_proj_weight = typed<bf16, 2>(at(TensorId::kQProjWeight), spec(TensorId::kQProjWeight));
  in.q_proj_bias = typed<bf16, 1>(at(TensorId::kQProjBias), spec(TensorId::kQProjBias));
  in.k_proj_weight = typed<bf16, 2>(at(TensorId::kKProjWeight), spec(TensorId::kKProjWeight));
  in.k_proj_bias = typed<bf16, 1>(at(TensorId::kKProjBias), spec(TensorId::kKProjBias));
  in.v_proj_weight = typed<bf16, 2>(at(TensorId::kVProjWeight), spec(TensorId::kVProjWeight));
  in.v_proj_bias = typed<bf16, 1>(at(TensorId::kVProjBias), spec(TensorId::kVProjBias));
  in.o_proj_weight = typed<bf16, 2>(at(TensorId::kOProjWeight), spec(TensorId::kOProjWeight));
  return in;
}

DeviceInputs::DeviceInputs(const ProblemShape& shape) : shape_(shape) {
  for (int i = 0; i < kNumInputs; ++i) buffers_[i] = DeviceBuffer(tensor_spec(static_cast<TensorId>(i), shape).bytes());
}

void DeviceInputs::generate(const InputSettings& settings, cudaStream_t stream) {
  for (int i = 0; i < kNumInputs; ++i) {
    generate_tensor_on_device(static_cast<TensorId>(i), shape_, settings, buffers_[i].data(), stream);
  }
}

void DeviceInputs::upload(const HostInputs& host, cudaStream_t stream) {
  if (!(host.shape == shape_)) throw std::invalid_argument("host inputs have another shape");
  for (int i = 0; i < kNumInputs; ++i) {
    VLB_CUDA_CHECK(cudaMemcpyAsync(buffers_[i].data(), host.tensors[i].data(), host.tensors[i].size(),
                                   cudaMemcpyHostToDevice, stream));
  }
}

std::size_t DeviceInputs::total_bytes() const {
  std::size_t total = 0;
  for (const auto& buffer : buffers_) total += buffer.bytes();
  return total;
}

FusionInputs DeviceInputs::view() const {
  std::array<const void*, kNumInputs> pointers{};
  for (int i = 0; i < kNumInputs; ++i) pointers[i] = buffers_[i].data();
  return make_fusion_inputs(shape_, pointers);
}

}  // namespace vlb
