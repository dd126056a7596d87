#pragma once
// Seeded inputs: every tensor is a pure function of (seed, tensor name, element index), bit-identical on host
// and device. Distributions as docs/operation.md: hidden states N(0,1); weights and biases 0.02 * N(0,1); positions by pattern.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "harness/core/problem.hpp"

namespace vlb {

enum class PositionPattern {
  kOfficial,  // language position = index; vision tokens in 14x14 frames (the official workloads)
  kRandom,    // random language positions, random t/h/w grids: no solution may depend on the official pattern
};
std::string_view position_pattern_name(PositionPattern pattern);  // "official", "random"
PositionPattern parse_position_pattern(std::string_view text);    // throws UsageError

struct InputSettings {
  std::uint64_t seed = 0;
  PositionPattern positions = PositionPattern::kOfficial;
};

// Fills `destination` (exactly tensor_spec(id, shape).bytes() bytes) on the host.
void generate_tensor_on_host(TensorId id, const ProblemShape& shape, const InputSettings& settings,
                             std::span<std::byte> destination);

// Fills device memory `destination` (tensor_spec(id, shape).bytes() bytes), asynchronously on `stream`.
void generate_tensor_on_device(TensorId id, const ProblemShape& shape, const InputSettings& settings,
                               void* destination, cudaStream_t stream);

}  // namespace vlb
