// workloads/gpus.json: selection by device name and by key, and errors that name the file and field.
#include <catch2/catch.hpp>

#include <string>

#include "harness/core/errors.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "support_sol_files.hpp"

namespace {

std::vector<vlb::GpuSpec> project_specs() {
  return vlb::load_gpu_specs(vlb::testing::project_file("workloads/gpus.json"));
}

// The message of the InputError that loading `text` as gpus.json raises.
std::string load_error(const std::string& text) {
  const vlb::testing::ScratchFile file("gpus.json", text);
  try {
    vlb::load_gpu_specs(file.path());
  } catch (const vlb::InputError& error) {
    return error.what();
  }
  FAIL("no InputError for: " << text);
  return {};
}

const char* const kValidEntry =
    R"({"key": "X1", "match": ["X1"], "dense_bf16_tflops": 100, "memory_tb_per_s": 1.5, "fixed_overhead_ms": 0, "source": "test"})";

}  // namespace

TEST_CASE("the project's GPU table carries the leaderboard's B200 constants and the datasheets", "[sol]") {
  const auto specs = project_specs();
  const vlb::GpuSpec& b200 = vlb::select_gpu_spec(specs, "NVIDIA B200", std::nullopt);
  CHECK(b200.key == "B200");
  CHECK(b200.dense_bf16_flops_per_s == Approx(603751.0 * 1.5e9 * 2));
  CHECK(b200.memory_bytes_per_s == Approx(7.67e12));
  CHECK(b200.fixed_overhead_ms == Approx(0.0004));
  for (const vlb::GpuSpec& spec : specs) {
    INFO(spec.key);
    CHECK_FALSE(spec.source.empty());
  }
}

TEST_CASE("GPU specs are selected by device-name substring, first match wins", "[sol]") {
  const auto specs = project_specs();
  CHECK(vlb::select_gpu_spec(specs, "NVIDIA H200", std::nullopt).key == "H200_SXM");
  CHECK(vlb::select_gpu_spec(specs, "NVIDIA H100 80GB HBM3", std::nullopt).key == "H100_SXM");
  CHECK(vlb::select_gpu_spec(specs, "NVIDIA H100 PCIe", std::nullopt).key == "H100_PCIe");
  CHECK(vlb::select_gpu_spec(specs, "NVIDIA A100-SXM4-80GB", std::nullopt).key == "A100_SXM");
  const vlb::GpuSpec& h200 = vlb::select_gpu_spec(specs, "NVIDIA H200", std::nullopt);
  CHECK(h200.dense_bf16_flops_per_s == Approx(989e12));
  CHECK(h200.memory_bytes_per_s == Approx(4.8e12));
}

TEST_CASE("a GPU spec key overrides the device name", "[sol]") {
  const auto specs = project_specs();
  const vlb::GpuSpec& measured = vlb::select_gpu_spec(specs, "NVIDIA H200", std::string("H200_measured"));
  CHECK(measured.key == "H200_measured");
  CHECK(measured.dense_bf16_flops_per_s == Approx(790e12));
  CHECK(measured.memory_bytes_per_s == Approx(4.3e12));
  CHECK(vlb::select_gpu_spec(specs, "Some Unknown GPU", std::string("B200")).key == "B200");
  CHECK_THROWS_WITH(vlb::select_gpu_spec(specs, "NVIDIA H200", std::string("H300")),
                    Catch::Contains("H300") && Catch::Contains("H200_SXM"));
}

TEST_CASE("an unknown device name without an override is a usage error", "[sol]") {
  const auto specs = project_specs();
  CHECK_THROWS_AS(vlb::select_gpu_spec(specs, "Radeon Instinct MI300X", std::nullopt), vlb::UsageError);
  CHECK_THROWS_WITH(vlb::select_gpu_spec(specs, "Radeon Instinct MI300X", std::nullopt),
                    Catch::Contains("Radeon Instinct MI300X") && Catch::Contains("B200"));
}

TEST_CASE("a valid scratch table loads with its values", "[sol]") {
  const vlb::testing::ScratchFile file("gpus.json", std::string("[") + kValidEntry + "]");
  const auto specs = vlb::load_gpu_specs(file.path());
  REQUIRE(specs.size() == 1);
  CHECK(specs[0].key == "X1");
  CHECK(specs[0].dense_bf16_flops_per_s == Approx(100e12));
  CHECK(specs[0].memory_bytes_per_s == Approx(1.5e12));
}

TEST_CASE("malformed gpus.json files are input errors naming file and field", "[sol]") {
  CHECK_THAT(load_error("[{"), Catch::Contains("gpus.json") && Catch::Contains("not valid JSON"));
  CHECK_THAT(load_error("{}"), Catch::Contains("gpus.json") && Catch::Contains("non-empty JSON list"));
  CHECK_THAT(load_error("[]"), Catch::Contains("non-empty JSON list"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": ["X1"], "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s"}])"),
             Catch::Contains("gpus.json") && Catch::Contains("[0].dense_bf16_tflops") && Catch::Contains("missing"));
  CHECK_THAT(load_error(std::string("[") + kValidEntry +
                        R"(, {"key": "X2", "match": ["X2"], "dense_bf16_tflops": -3, "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s"}])"),
             Catch::Contains("[1].dense_bf16_tflops") && Catch::Contains("positive"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": "X1", "dense_bf16_tflops": 1, "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s"}])"),
             Catch::Contains("[0].match"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": [""], "dense_bf16_tflops": 1, "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s"}])"),
             Catch::Contains("[0].match[0]"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": [], "dense_bf16_tflops": "fast", "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s"}])"),
             Catch::Contains("[0].dense_bf16_tflops") && Catch::Contains("number"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": [], "dense_bf16_tflops": 1, "memory_tb_per_s": 1, "fixed_overhead_ms": -1, "source": "s"}])"),
             Catch::Contains("[0].fixed_overhead_ms"));
  CHECK_THAT(load_error(R"([{"key": "X1", "match": [], "dense_bf16_tflops": 1, "memory_tb_per_s": 1, "fixed_overhead_ms": 0, "source": "s", "tflops": 3}])"),
             Catch::Contains("[0].tflops") && Catch::Contains("unknown field"));
  CHECK_THAT(load_error(std::string("[") + kValidEntry + ", " + kValidEntry + "]"),
             Catch::Contains("[1].key") && Catch::Contains("duplicate"));
}

TEST_CASE("a missing gpus.json is an input error naming the path", "[sol]") {
  CHECK_THROWS_AS(vlb::load_gpu_specs("/nonexistent/vlbench/gpus.json"), vlb::InputError);
  CHECK_THROWS_WITH(vlb::load_gpu_specs("/nonexistent/vlbench/gpus.json"), Catch::Contains("/nonexistent/vlbench/gpus.json"));
}
