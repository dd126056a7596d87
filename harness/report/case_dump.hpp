#pragma once
// A case's data for cross-checking outside vlbench (PyTorch: safetensors.torch.load_file): every input, the
// solution's output ("output") and the reference's ("reference_output") in one safetensors file, with the
// definition's names, dtypes ("BF16", "I64") and shapes. See docs/python-cross-check.md.
#include <cuda_runtime.h>

#include <array>
#include <filesystem>
#include <map>
#include <string>

#include "harness/core/problem.hpp"
#include "harness/inputs/input_set.hpp"

namespace vlb {

inline constexpr std::string_view kDumpSolutionOutputKey = "output";
inline constexpr std::string_view kDumpReferenceOutputKey = "reference_output";

// Copies the inputs and both outputs (device pointers of tensor_spec(kOutput, inputs.shape()).bytes() bytes; a null
// pointer leaves that tensor out) to the host after the work on `stream`, and writes `file` atomically, creating its
// folder. `metadata` (uuid, solution, seed, positions, ...) goes into the header's __metadata__, together with the
// axes batch_size, lang_seq_len and vision_seq_len (unless `metadata` sets them). SystemError when it cannot write.
void write_case_dump(const std::filesystem::path& file, const DeviceInputs& inputs, const void* solution_output,
                     const void* reference_output, const std::map<std::string, std::string>& metadata,
                     cudaStream_t stream);
// The same for inputs at any address (a call's placement): `inputs[i]` holds tensor_spec(i, shape).bytes() bytes.
void write_case_dump(const std::filesystem::path& file, const ProblemShape& shape,
                     const std::array<const void*, kNumInputs>& inputs, const void* solution_output,
                     const void* reference_output, const std::map<std::string, std::string>& metadata,
                     cudaStream_t stream);

// `<dir>/<uuid>.safetensors`, or `<dir>/<B>_<Lq>_<Lv>.safetensors` for a custom case (empty uuid).
std::filesystem::path dump_file_name(const std::filesystem::path& dir, const std::string& uuid,
                                     const ProblemShape& shape);

}  // namespace vlb
