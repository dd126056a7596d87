#include "harness/inputs/workload_inputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/inputs/safetensors.hpp"

namespace vlb {

namespace {

constexpr std::string_view kFileInputType = "safetensors";

const InputDescriptor* find_descriptor(const Workload* workload, TensorId id) {
  if (workload == nullptr) return nullptr;
  const auto found = workload->inputs.find(std::string(tensor_name(id)));
  return found == workload->inputs.end() ? nullptr : &found->second;
}

bool is_file_input(const InputDescriptor* descriptor) { return descriptor != nullptr && descriptor->type == kFileInputType; }

void check_against_definition(const SafetensorsEntry& entry, const TensorSpec& spec, const ProblemShape& shape,
                              const std::string& context) {
  const std::string_view expected_dtype = safetensors_dtype_name(spec.dtype);
  if (entry.dtype != expected_dtype) {
    throw InputError(fmt::format("{}: dtype {}, but the definition's {} is {} (safetensors \"{}\")", context,
                                 entry.dtype, spec.name, dtype_name(spec.dtype), expected_dtype));
  }
  if (entry.shape != spec.shape) {
    throw InputError(fmt::format("{}: shape [{}], but {} of this case ({}) has shape [{}]", context,
                                 fmt::join(entry.shape, ", "), spec.name, describe(shape), fmt::join(spec.shape, ", ")));
  }
}

}  // namespace

bool has_file_inputs(const Workload* workload) {
  if (workload == nullptr) return false;
  return std::any_of(workload->inputs.begin(), workload->inputs.end(),
                     [](const auto& item) { return is_file_input(&item.second); });
}

std::vector<std::byte> load_file_input(const InputDescriptor& descriptor, TensorId id, const ProblemShape& shape) {
  const TensorSpec spec = tensor_spec(id, shape);
  if (descriptor.type != kFileInputType || !descriptor.path || !descriptor.tensor_key) {
    throw InputError(fmt::format("input {}: descriptor of type \"{}\" names no safetensors file and tensor_key",
                                 spec.name, descriptor.type));
  }
  const std::string& key = *descriptor.tensor_key;
  const std::string context = fmt::format("input {} from safetensors file \"{}\", tensor \"{}\"", spec.name,
                                          descriptor.path->string(), key);
  // The reader's messages name the file; say which input and key we were loading.
  auto with_input = [&](const InputError& error) {
    return InputError(fmt::format("input {} (tensor \"{}\"): {}", spec.name, key, error.message()), error.where());
  };
  std::optional<SafetensorsReader> reader;
  const SafetensorsEntry* entry = nullptr;
  try {
    reader.emplace(*descriptor.path);
    entry = &reader->entry(key);
  } catch (const InputError& error) {
    throw with_input(error);
  }
  check_against_definition(*entry, spec, shape, context);
  try {
    return reader->read(key);
  } catch (const InputError& error) {
    throw with_input(error);
  }
}

CaseInputSource::CaseInputSource(const Workload* workload, const ProblemShape& shape, cudaStream_t stream)
    : shape_(shape) {
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    const InputDescriptor* descriptor = find_descriptor(workload, id);
    if (!is_file_input(descriptor)) continue;
    std::vector<std::byte> host;
    try {
      host = load_file_input(*descriptor, id, shape);
    } catch (const InputError& error) {
      throw InputError(fmt::format("workload {} (line {}): {}", workload->uuid, workload->line, error.message()),
                       error.where());
    }
    DeviceBuffer& device = file_inputs_[i].emplace(host.size());
    VLB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), host.size(), cudaMemcpyHostToDevice, stream));
    // `host` is freed at the end of this iteration: the copy must be done by then.
    VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

void CaseInputSource::fill(const InputSettings& settings, const std::array<void*, kNumInputs>& destinations,
                           cudaStream_t stream) const {
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    if (file_inputs_[i]) {
      VLB_CUDA_CHECK(cudaMemcpyAsync(destinations[i], file_inputs_[i]->data(), file_inputs_[i]->bytes(),
                                     cudaMemcpyDeviceToDevice, stream));
    } else {
      generate_tensor_on_device(id, shape_, settings, destinations[i], stream);
    }
  }
}

bool CaseInputSource::has_file_inputs() const {
  return std::any_of(file_inputs_.begin(), file_inputs_.end(), [](const auto& input) { return input.has_value(); });
}

void fill_case_inputs(const Workload* workload, const InputSettings& settings, DeviceInputs& inputs,
                      cudaStream_t stream) {
  std::array<void*, kNumInputs> destinations{};
  for (int i = 0; i < kNumInputs; ++i) destinations[i] = inputs.data(static_cast<TensorId>(i));
  const CaseInputSource source(workload, inputs.shape(), stream);
  source.fill(settings, destinations, stream);
  // The copies from the file inputs' buffers must be done before the source frees them.
  if (source.has_file_inputs()) VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace vlb
