// On the GPU: a case dump holds exactly the device inputs (bit-identical to the host generator with the same seed)
// and both outputs; fill_case_inputs uploads exactly a file's bytes for a file input and generates the rest.
#include <catch2/catch.hpp>

#include <cstring>

#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/inputs/safetensors.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/report/case_dump.hpp"
#include "safetensors/support_safetensors_files.hpp"
#include "support/gpu_test.hpp"

namespace vlb {
namespace {

constexpr std::byte kPoison{0xA5};

std::vector<std::byte> download(const void* device, std::size_t bytes, cudaStream_t stream) {
  std::vector<std::byte> host(bytes);
  VLB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, bytes, cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

DeviceBuffer upload(const std::vector<std::byte>& host, cudaStream_t stream) {
  DeviceBuffer buffer(host.size());
  VLB_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host.data(), host.size(), cudaMemcpyHostToDevice, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return buffer;
}

void poison(DeviceInputs& inputs, cudaStream_t stream) {
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    VLB_CUDA_CHECK(cudaMemsetAsync(inputs.data(id), static_cast<int>(kPoison), inputs.bytes(id), stream));
  }
}

Workload generated_workload(const ProblemShape& shape) {
  Workload workload;
  workload.uuid = "11111111-dump-test";
  workload.shape = shape;
  workload.line = 3;
  for (int i = 0; i < kNumInputs; ++i) {
    const TensorSpec spec = tensor_spec(static_cast<TensorId>(i), shape);
    workload.inputs[std::string(spec.name)] = {spec.dtype == DType::kInt64 ? "custom" : "random", std::nullopt, std::nullopt};
  }
  return workload;
}

}  // namespace

TEST_CASE("a case dump holds every input bit-identical to the host generator, and both outputs", "[safetensors][gpu]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto pattern = GENERATE(PositionPattern::kOfficial, PositionPattern::kRandom);
  const InputSettings settings{seed, pattern};
  const ProblemShape shape{2, 24, 196};
  const testing::TestStream stream;
  DeviceInputs inputs(shape);
  poison(inputs, stream.get());
  inputs.generate(settings, stream.get());
  const std::size_t output_elements = static_cast<std::size_t>(tensor_spec(TensorId::kOutput, shape).elements());
  const auto solution_output = testing::random_bf16_bytes(output_elements, seed + 1);
  const auto reference_output = testing::random_bf16_bytes(output_elements, seed + 2);
  const DeviceBuffer solution_device = upload(solution_output, stream.get());
  const DeviceBuffer reference_device = upload(reference_output, stream.get());

  const testing::ScratchFolder folder;
  const auto file = dump_file_name(folder.file("dumps"), "", shape);  // the folder does not exist yet
  const std::map<std::string, std::string> metadata = {
      {"solution", "template"}, {"seed", std::to_string(seed)}, {"positions", std::string(position_pattern_name(pattern))}};
  write_case_dump(file, inputs, solution_device.data(), reference_device.data(), metadata, stream.get());

  const SafetensorsFile dump = read_safetensors(file);
  const HostInputs expected = make_host_inputs(shape, settings);
  for (int i = 0; i < kNumInputs; ++i) {
    const TensorSpec spec = tensor_spec(static_cast<TensorId>(i), shape);
    INFO("input " << spec.name);
    REQUIRE(dump.tensors.contains(std::string(spec.name)));
    const SafetensorsTensor& tensor = dump.tensors.at(std::string(spec.name));
    CHECK(tensor.dtype == (spec.dtype == DType::kInt64 ? "I64" : "BF16"));
    CHECK(tensor.shape == spec.shape);
    CHECK(testing::byte_difference(tensor.data, expected.tensors[i]) == "");
  }
  const auto output_shape = tensor_spec(TensorId::kOutput, shape).shape;
  CHECK(dump.tensors.at("output").dtype == "BF16");
  CHECK(dump.tensors.at("output").shape == output_shape);
  CHECK(testing::byte_difference(dump.tensors.at("output").data, solution_output) == "");
  CHECK(dump.tensors.at("reference_output").shape == output_shape);
  CHECK(testing::byte_difference(dump.tensors.at("reference_output").data, reference_output) == "");
  CHECK(dump.tensors.size() == static_cast<std::size_t>(kNumInputs) + 2);
  CHECK(dump.metadata.at("solution") == "template");
  CHECK(dump.metadata.at("seed") == std::to_string(seed));
  CHECK(dump.metadata.at("positions") == position_pattern_name(pattern));
  CHECK(dump.metadata.at("batch_size") == "2");
  CHECK(dump.metadata.at("lang_seq_len") == "24");
  CHECK(dump.metadata.at("vision_seq_len") == "196");
}

TEST_CASE("fill_case_inputs uploads a file input's exact bytes and generates the others", "[safetensors][gpu]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const InputSettings settings{seed, PositionPattern::kRandom};
  const ProblemShape shape{2, 16, 196};
  const testing::TestStream stream;
  const testing::ScratchFolder folder;
  const TensorSpec lang = tensor_spec(TensorId::kLanguageHiddenStates, shape);
  const auto file_bytes = testing::random_bf16_bytes(static_cast<std::size_t>(lang.elements()), seed + 7);
  const auto file = folder.file("lang.safetensors");
  write_safetensors(file, {{"hidden", {"BF16", lang.shape, file_bytes}}}, {{"format", "pt"}});
  Workload workload = generated_workload(shape);
  workload.inputs["language_hidden_states"] = {"safetensors", file, "hidden"};

  DeviceInputs inputs(shape);
  poison(inputs, stream.get());
  fill_case_inputs(&workload, settings, inputs, stream.get());
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  const HostInputs generated = make_host_inputs(shape, settings);
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    INFO("input " << tensor_name(id));
    const auto on_device = download(inputs.data(id), inputs.bytes(id), stream.get());
    const auto& expected = id == TensorId::kLanguageHiddenStates ? file_bytes : generated.tensors[i];
    CHECK(testing::byte_difference(on_device, expected) == "");
  }
  CHECK(testing::byte_difference(file_bytes, generated.tensors[static_cast<int>(TensorId::kLanguageHiddenStates)]) != "");
}

TEST_CASE("fill_case_inputs without a workload generates every input", "[safetensors][gpu]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const InputSettings settings{seed, PositionPattern::kOfficial};
  const ProblemShape shape{1, 8, 392};
  const testing::TestStream stream;
  DeviceInputs inputs(shape);
  poison(inputs, stream.get());
  fill_case_inputs(nullptr, settings, inputs, stream.get());
  const HostInputs generated = make_host_inputs(shape, settings);
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    INFO("input " << tensor_name(id));
    CHECK(testing::byte_difference(download(inputs.data(id), inputs.bytes(id), stream.get()), generated.tensors[i]) == "");
  }
}

TEST_CASE("fill_case_inputs names the workload, file and key of a file that does not fit the case", "[safetensors][gpu]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const ProblemShape shape{2, 16, 196};
  const testing::TestStream stream;
  const testing::ScratchFolder folder;
  const auto file = folder.file("short.safetensors");
  const std::vector<std::int64_t> wrong_shape = {2, 15, 4096};
  write_safetensors(file, {{"hidden", {"BF16", wrong_shape, testing::random_bf16_bytes(2 * 15 * 4096, seed)}}});
  Workload workload = generated_workload(shape);
  workload.inputs["language_hidden_states"] = {"safetensors", file, "hidden"};
  DeviceInputs inputs(shape);
  const InputError error = testing::capture_input_error(
      [&] { fill_case_inputs(&workload, InputSettings{seed, PositionPattern::kOfficial}, inputs, stream.get()); });
  CHECK(error.exit_code() == ExitCode::kBadInput);
  CHECK_THAT(error.message(), Catch::Contains(workload.uuid));
  CHECK_THAT(error.message(), Catch::Contains(file.string()));
  CHECK_THAT(error.message(), Catch::Contains("\"hidden\""));
  CHECK_THAT(error.message(), Catch::Contains("[2, 15, 4096]"));
}

}  // namespace vlb
