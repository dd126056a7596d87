#include "harness/report/case_dump.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <system_error>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/inputs/safetensors.hpp"

namespace vlb {

namespace {

// One tensor's bytes on the host, with its safetensors description.
struct HostTensor {
  TensorSpec spec;
  std::vector<std::byte> bytes;
};

HostTensor copy_to_host(const TensorSpec& spec, const void* device, cudaStream_t stream) {
  HostTensor tensor{spec, std::vector<std::byte>(spec.bytes())};
  VLB_CUDA_CHECK(cudaMemcpyAsync(tensor.bytes.data(), device, tensor.bytes.size(), cudaMemcpyDeviceToHost, stream));
  return tensor;
}

SafetensorsTensorView view_of(const HostTensor& tensor) {
  return {std::string(safetensors_dtype_name(tensor.spec.dtype)), tensor.spec.shape, tensor.bytes};
}

SafetensorsMetadata with_axes(const std::map<std::string, std::string>& metadata, const ProblemShape& shape) {
  SafetensorsMetadata result = metadata;
  result.emplace("batch_size", std::to_string(shape.batch));
  result.emplace("lang_seq_len", std::to_string(shape.lang_seq));
  result.emplace("vision_seq_len", std::to_string(shape.vision_seq));
  return result;
}

}  // namespace

void write_case_dump(const std::filesystem::path& file, const DeviceInputs& inputs, const void* solution_output,
                     const void* reference_output, const std::map<std::string, std::string>& metadata,
                     cudaStream_t stream) {
  std::array<const void*, kNumInputs> pointers{};
  for (int i = 0; i < kNumInputs; ++i) pointers[i] = inputs.data(static_cast<TensorId>(i));
  write_case_dump(file, inputs.shape(), pointers, solution_output, reference_output, metadata, stream);
}

void write_case_dump(const std::filesystem::path& file, const ProblemShape& shape,
                     const std::array<const void*, kNumInputs>& inputs, const void* solution_output,
                     const void* reference_output, const std::map<std::string, std::string>& metadata,
                     cudaStream_t stream) {
  std::map<std::string, HostTensor> host;
  for (int i = 0; i < kNumInputs; ++i) {
    const TensorSpec spec = tensor_spec(static_cast<TensorId>(i), shape);
    host.emplace(std::string(spec.name), copy_to_host(spec, inputs[i], stream));
  }
  const TensorSpec output_spec = tensor_spec(TensorId::kOutput, shape);
  if (solution_output != nullptr) {
    host.emplace(std::string(kDumpSolutionOutputKey), copy_to_host(output_spec, solution_output, stream));
  }
  if (reference_output != nullptr) {
    host.emplace(std::string(kDumpReferenceOutputKey), copy_to_host(output_spec, reference_output, stream));
  }
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));

  std::map<std::string, SafetensorsTensorView> views;
  for (const auto& [name, tensor] : host) views.emplace(name, view_of(tensor));
  if (file.has_parent_path()) {
    std::error_code status;
    std::filesystem::create_directories(file.parent_path(), status);
    if (status) {
      throw SystemError(fmt::format("cannot create the dump folder \"{}\": {}", file.parent_path().string(),
                                    status.message()));
    }
  }
  write_safetensors(file, views, with_axes(metadata, shape));
}

std::filesystem::path dump_file_name(const std::filesystem::path& dir, const std::string& uuid,
                                     const ProblemShape& shape) {
  if (!uuid.empty()) return dir / (uuid + ".safetensors");
  return dir / fmt::format("{}_{}_{}.safetensors", shape.batch, shape.lang_seq, shape.vision_seq);
}

}  // namespace vlb
