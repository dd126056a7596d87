#pragma once
// Guards against broken and dishonest solutions: a poisoned output (so an unwritten element fails), a scrambled
// workspace (so nothing a call leaves there survives to the next) and fingerprints of the inputs before and after a
// call (so a modified input is caught). Guard zones around the buffers are in guard_zones.hpp.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "harness/core/problem.hpp"
#include "harness/inputs/input_set.hpp"

namespace vlb {

// Fills `elements` bf16 values with a quiet NaN (0x7FC0).
void poison_bf16(void* data, std::int64_t elements, cudaStream_t stream);

// Fills `bytes` bytes with pseudo-random bytes, a pure function of `key` and the byte index.
void scramble_bytes(void* data, std::size_t bytes, std::uint64_t key, cudaStream_t stream);

using InputFingerprints = std::array<std::uint64_t, kNumInputs>;

// A 64-bit hash of every input's bytes, computed on the device with one synchronization of `stream`.
InputFingerprints fingerprint_inputs(const DeviceInputs& inputs, cudaStream_t stream);
// The same for inputs at any address (a placement of them): `inputs[i]` holds tensor_spec(i, shape).bytes() bytes.
InputFingerprints fingerprint_inputs(const std::array<const void*, kNumInputs>& inputs, const ProblemShape& shape,
                                     cudaStream_t stream);
std::uint64_t fingerprint_bytes(const void* device_data, std::size_t bytes, cudaStream_t stream);
// fingerprints[i] of the `bytes[i]` bytes at device address `data[i]`, with one synchronization of `stream`.
void fingerprint_ranges(std::span<const void* const> data, std::span<const std::size_t> bytes,
                        std::span<std::uint64_t> fingerprints, cudaStream_t stream);

// Names of the inputs whose fingerprints differ, comma separated; empty when none.
std::string modified_inputs(const InputFingerprints& before, const InputFingerprints& after);

}  // namespace vlb
