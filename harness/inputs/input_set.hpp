#pragma once
// The eleven inputs of one case, on the host (for the CPU reference and tests) or on the device.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "harness/core/device_buffer.hpp"
#include "harness/inputs/generator.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

struct HostInputs {
  ProblemShape shape;
  std::array<std::vector<std::byte>, kNumInputs> tensors;

  std::span<const bf16> bf16_tensor(TensorId id) const;
  std::span<const std::int64_t> int64_tensor(TensorId id) const;
  std::span<std::byte> bytes(TensorId id) { return tensors[static_cast<int>(id)]; }
};

HostInputs make_host_inputs(const ProblemShape& shape, const InputSettings& settings);

// Typed views of eleven device pointers in the definition's order.
FusionInputs make_fusion_inputs(const ProblemShape& shape, const std::array<const void*, kNumInputs>& pointers);

class DeviceInputs {
 public:
  explicit DeviceInputs(const ProblemShape& shape);  // allocates, contents undefined

  void generate(const InputSettings& settings, cudaStream_t stream);
  void upload(const HostInputs& host, cudaStream_t stream);

  const ProblemShape& shape() const { return shape_; }
  void* data(TensorId id) const { return buffers_[static_cast<int>(id)].data(); }
  std::size_t bytes(TensorId id) const { return buffers_[static_cast<int>(id)].bytes(); }
  std::size_t total_bytes() const;
  FusionInputs view() const;

 private:
  ProblemShape shape_;
  std::array<DeviceBuffer, kNumInputs> buffers_;
};

}  // namespace vlb
