
#include <stdexcept>

#include "harness/core/cuda_check.hpp"
#include "harness/inputs/generator.hpp"
#include "harness/inputs/generator_rules.hpp"

namespace vlb {
namespace {

constexpr int kThreads = 256;

__global__ void fill_normal_kernel(input_values::ElementRule rule, __nv_bfloat16* out, std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = input_values::normal_element(rule, i);
  }
}

__global__ void fill_positions_kernel(input_values::ElementRule rule, bool language, std::int64_t* out,
                                      std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = language ? input_values::language_position_element(rule, i) : input_values::grid_element(rule, i);
  }
}

unsigned grid_for(std::uint64_t count) {
  const std::uint64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

}  // namespace

void generate_tensor_on_device(TensorId id, const ProblemShape& shape, const InputSettings& settings,
                               void* destination, cudaStream_t stream) {
  const TensorSpec spec = tensor_spec(id, shape);
  if (spec.is_output) throw std::invalid_argument("the output is not an input tensor");
  const input_values::ElementRule rule = input_values::element_rule(id, shape, settings);
  const auto count = static_cast<std::uint64_t>(spec.elements());
  if (id == TensorId::kLanguagePositionIds || id == TensorId::kVisionGridThw) {
    fill_positions_kernel<<<grid_for(count), kThreads, 0, stream>>>(rule, id == TensorId::kLanguagePositionIds,
                                                                    static_cast<std::int64_t*>(destination), count);
  } else {
    fill_normal_kernel<<<grid_for(count), kThreads, 0, stream>>>(rule, static_cast<__nv_bfloat16*>(destination),
                                                                 count);
  }
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb
