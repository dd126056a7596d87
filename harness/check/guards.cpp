// fingerprint_inputs and modified_inputs (the kernels are in guards.cu).
#include <string>

#include "harness/check/guards.hpp"

namespace vlb {

InputFingerprints fingerprint_inputs(const DeviceInputs& inputs, cudaStream_t stream) {
  std::array<const void*, kNumInputs> data{};
  for (int i = 0; i < kNumInputs; ++i) data[i] = inputs.data(static_cast<TensorId>(i));
  return fingerprint_inputs(data, inputs.shape(), stream);
}

InputFingerprints fingerprint_inputs(const std::array<const void*, kNumInputs>& inputs, const ProblemShape& shape,
                                     cudaStream_t stream) {
  std::array<std::size_t, kNumInputs> bytes{};
  for (int i = 0; i < kNumInputs; ++i) bytes[i] = tensor_spec(static_cast<TensorId>(i), shape).bytes();
  InputFingerprints fingerprints{};
  fingerprint_ranges(inputs, bytes, fingerprints, stream);
  return fingerprints;
}

std::string modified_inputs(const InputFingerprints& before, const InputFingerprints& after) {
  std::string names;
  for (int i = 0; i < kNumInputs; ++i) {
    if (before[i] == after[i]) continue;
    if (!names.empty()) names += ", ";
    names += tensor_name(static_cast<TensorId>(i));
  }
  return names;
}

}  // namespace vlb
