// fingerprint_inputs and modified_inputs (the kernels are in guards.cu).
#include <string>

#include "harness/check/guards.hpp"

namespace vlb {

InputFingerprints fingerprint_inputs(const DeviceInputs& inputs, cudaStream_t stream) {
  InputFingerprints fingerprints{};
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    fingerprints[i] = fingerprint_bytes(inputs.data(id), inputs.bytes(id), stream);
  }
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
