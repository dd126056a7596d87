#pragma once
// Guards against broken and dishonest solutions: a poisoned output (so an unwritten element fails) and
// fingerprints of the inputs before and after a call (so a modified input is caught).
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "harness/core/problem.hpp"
#include "harness/inputs/input_set.hpp"

namespace vlb {

// Fills `elements` bf16 values with a quiet NaN (0x7FC0).
void poison_bf16(void* data, std::int64_t elements, cudaStream_t stream);

using InputFingerprints = std::array<std::uint64_t, kNumInputs>;

// A 64-bit hash of every input's bytes, computed on the device (synchronizes `stream`).
InputFingerprints fingerprint_inputs(const DeviceInputs& inputs, cudaStream_t stream);
std::uint64_t fingerprint_bytes(const void* device_data, std::size_t bytes, cudaStream_t stream);

// Names of the inputs whose fingerprints differ, comma separated; empty when none.
std::string modified_inputs(const InputFingerprints& before, const InputFingerprints& after);

}  // namespace vlb
