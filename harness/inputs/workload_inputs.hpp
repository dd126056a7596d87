#pragma once
// A case's inputs as its workload describes them: tensors read from safetensors files where the workload names one
// ({"type": "safetensors", "path": ..., "tensor_key": ...}), the seeded generator for all others.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "harness/inputs/generator.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

// True when at least one input of `workload` comes from a file (false for a custom case, workload == nullptr).
bool has_file_inputs(const Workload* workload);

// The bytes of input `id` from the file a safetensors descriptor names, checked against the definition: dtype as
// tensor_spec(id, shape).dtype, shape as tensor_spec(id, shape).shape. InputError naming the input, the file and the
// tensor key otherwise (unreadable or malformed file, unknown key, wrong dtype, wrong shape).
std::vector<std::byte> load_file_input(const InputDescriptor& descriptor, TensorId id, const ProblemShape& shape);

// A case's inputs for any number of calls: the file inputs read and uploaded once (their values are the same in every
// call), the generated ones written anew for each call's settings.
class CaseInputSource {
 public:
  // Reads and uploads the workload's file inputs (InputError naming the workload, the file and the key).
  CaseInputSource(const Workload* workload, const ProblemShape& shape, cudaStream_t stream);
  // Writes every input for `settings` to `destinations` (tensor_spec(i, shape).bytes() bytes each), on `stream`.
  void fill(const InputSettings& settings, const std::array<void*, kNumInputs>& destinations, cudaStream_t stream) const;
  bool has_file_inputs() const;

 private:
  ProblemShape shape_;
  std::array<std::optional<DeviceBuffer>, kNumInputs> file_inputs_;
};

// Fills every input of `inputs` (whose shape is the case's): from its file where the workload's descriptor is of type
// "safetensors", else generate_tensor_on_device with `settings`. `workload` is null for a custom case (all generated).
// File inputs are uploaded before this returns; generated ones are enqueued on `stream`.
void fill_case_inputs(const Workload* workload, const InputSettings& settings, DeviceInputs& inputs,
                      cudaStream_t stream);

}  // namespace vlb
