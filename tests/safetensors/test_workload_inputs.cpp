// Which inputs of a workload come from files, and loading one: the file's exact bytes once dtype and shape match.
#include <catch2/catch.hpp>

#include "harness/inputs/safetensors.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "safetensors/support_safetensors_files.hpp"

namespace vlb {
namespace {

Workload generated_workload(const ProblemShape& shape) {
  Workload workload;
  workload.uuid = "00000000-test";
  workload.shape = shape;
  workload.line = 1;
  for (int i = 0; i < kNumInputs; ++i) {
    const TensorSpec spec = tensor_spec(static_cast<TensorId>(i), shape);
    workload.inputs[std::string(spec.name)] = {spec.dtype == DType::kInt64 ? "custom" : "random", std::nullopt, std::nullopt};
  }
  return workload;
}

}  // namespace

TEST_CASE("has_file_inputs is true only when some input is read from a file", "[safetensors]") {
  const ProblemShape shape{1, 4, 196};
  CHECK_FALSE(has_file_inputs(nullptr));
  Workload workload = generated_workload(shape);
  CHECK_FALSE(has_file_inputs(&workload));
  workload.inputs["vision_grid_thw"] = {"safetensors", std::filesystem::path("/tmp/x.safetensors"), "thw"};
  CHECK(has_file_inputs(&workload));
}

TEST_CASE("load_file_input returns the file's bytes for a matching tensor", "[safetensors]") {
  const std::uint32_t seed = testing::fresh_seed();
  INFO("seed " << seed);
  const ProblemShape shape{2, 5, 196};
  const testing::ScratchFolder folder;
  const auto file = folder.file("inputs.safetensors");
  const TensorSpec lang = tensor_spec(TensorId::kLanguageHiddenStates, shape);
  const TensorSpec thw = tensor_spec(TensorId::kVisionGridThw, shape);
  const auto lang_bytes = testing::random_bf16_bytes(static_cast<std::size_t>(lang.elements()), seed);
  const auto thw_bytes = testing::random_int64_bytes(static_cast<std::size_t>(thw.elements()), seed + 1);
  write_safetensors(file, {{"lang", {"BF16", lang.shape, lang_bytes}}, {"thw", {"I64", thw.shape, thw_bytes}}});

  CHECK(testing::byte_difference(load_file_input({"safetensors", file, "lang"}, TensorId::kLanguageHiddenStates, shape),
                                 lang_bytes) == "");
  CHECK(testing::byte_difference(load_file_input({"safetensors", file, "thw"}, TensorId::kVisionGridThw, shape),
                                 thw_bytes) == "");

  // The same tensor for another case shape is refused.
  const ProblemShape other{1, 5, 196};
  const InputError error = testing::capture_input_error(
      [&] { (void)load_file_input({"safetensors", file, "lang"}, TensorId::kLanguageHiddenStates, other); });
  CHECK_THAT(error.message(), Catch::Contains("shape [2, 5, 4096]"));
  CHECK_THAT(error.message(), Catch::Contains("[1, 5, 4096]"));
}

TEST_CASE("load_file_input refuses a descriptor that names no file", "[safetensors]") {
  const InputError error = testing::capture_input_error([&] {
    (void)load_file_input({"random", std::nullopt, std::nullopt}, TensorId::kQProjBias, ProblemShape{1, 1, 196});
  });
  CHECK(error.exit_code() == ExitCode::kBadInput);
  CHECK_THAT(error.message(), Catch::Contains("q_proj_bias"));
}

}  // namespace vlb
