// The built-in suite: the 16 workloads of docs/operation.md with their uuids, shapes and tolerances, and how suites are found.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "harness/suite/suite.hpp"
#include "suite/suite_test_files.hpp"

using namespace vlb;
using vlb::testing::source_workloads_dir;
using vlb::testing::ScratchFolder;

namespace {

struct SpecWorkload {
  const char* uuid;
  std::int64_t batch, lang_seq, vision_seq;
  double atol;
};

// docs/operation.md, "The 16 workloads", in its order.
constexpr SpecWorkload kSpecWorkloads[] = {
    {"d48e8b5b-db2e-598e-9168-8e5c1b78d484", 2, 256, 392, 0.0098},
    {"309f06b4-c228-566d-9095-9685ea1e3666", 64, 256, 392, 0.018},
    {"89ec0f7e-c392-5e20-be12-d966a31af92b", 1, 512, 784, 0.0082},
    {"9df4cc20-4c6d-5b70-ad81-8185ad4755b0", 2, 1024, 1568, 0.012},
    {"7c3735bd-4bcc-5e49-b3b9-901e3454123d", 16, 512, 784, 0.013},
    {"8a7cfd99-ab74-5b7c-a21b-543c9637a618", 1, 4096, 6272, 0.0053},
    {"663d8041-0fff-5415-9629-e3032f2ed8b2", 4, 541, 980, 0.012},
    {"b6f8bbbe-7f37-51d4-bfe8-080f4f6c86d6", 2, 512, 784, 0.012},
    {"3ff4a535-fce0-592a-8b43-410fbb2cdff7", 8, 128, 196, 0.011},
    {"e27b5246-1233-5f29-93b9-415c4f54e187", 8, 256, 392, 0.01},
    {"c87d0d68-ad71-5c8a-8666-5428ae78cfa3", 1, 8192, 12544, 0.011},
    {"ebb51ccb-8a62-5e9c-9578-f9357f55481c", 1, 1024, 1568, 0.0067},
    {"81d65fe0-42e5-5bb2-8792-f06ce9a58d76", 32, 373, 588, 0.02},
    {"d0ec99c6-37fa-5302-b6c6-65564c7ec60b", 4, 512, 784, 0.0095},
    {"fea58ba1-ce30-5243-8c33-3cdcf87cf4d8", 16, 128, 196, 0.017},
    {"f36740f8-c877-5855-af92-5f7fd3522d9b", 2, 128, 196, 0.0088},
};

}  // namespace

TEST_CASE("the built-in suite holds the 16 workloads of docs/operation.md in order", "[suite]") {
  const Suite suite = load_suite("all", source_workloads_dir());
  CHECK(suite.name == "all");
  CHECK(suite.definition.name == "034_vision_language_cross_attention_fusion");
  REQUIRE(suite.workloads.size() == 16);
  for (std::size_t i = 0; i < suite.workloads.size(); ++i) {
    const Workload& workload = suite.workloads[i];
    const SpecWorkload& expected = kSpecWorkloads[i];
    INFO("workload " << i);
    CHECK(workload.uuid == expected.uuid);
    CHECK(workload.shape == ProblemShape{expected.batch, expected.lang_seq, expected.vision_seq});
    CHECK(workload.tolerance.atol == expected.atol);
    CHECK(workload.tolerance.rtol == 0.05);
    CHECK(workload.tolerance.required_match_ratio == 0.99);  // applied, whatever the file says
    REQUIRE(workload.file_required_match_ratio.has_value());
    CHECK(*workload.file_required_match_ratio == 0.98);  // recorded as spelled upstream
    CHECK(workload.line == static_cast<int>(i) + 1);
    CHECK(workload.inputs.size() == static_cast<std::size_t>(kNumInputs));
    // SOL-ExecBench's rule: every input custom, made by the definition's custom_inputs_entrypoint.
    for (const auto& [name, descriptor] : workload.inputs) CHECK(descriptor.type == "custom");
  }
  CHECK(suite.definition.custom_inputs_entrypoint == "make_inputs");
  // A few by value, independently of the table above.
  CHECK(suite.workloads[5].shape == ProblemShape{1, 4096, 6272});
  CHECK(suite.workloads[10].tolerance.atol == 0.011);
  CHECK(suite.workloads[12].shape == ProblemShape{32, 373, 588});
}

TEST_CASE("the built-in definition lists the tensors in the definition's order with their dtypes", "[suite]") {
  const Definition definition = load_definition(source_workloads_dir() / "definition.json");
  const std::vector<TensorSpec> specs = tensor_specs(ProblemShape{2, 3, 5});
  REQUIRE(definition.inputs.size() == static_cast<std::size_t>(kNumInputs));
  for (int i = 0; i < kNumInputs; ++i) {
    CHECK(definition.inputs[i].name == specs[i].name);
    CHECK(definition.inputs[i].dtype == specs[i].dtype);
    CHECK(definition.inputs[i].shape.size() == specs[i].shape.size());
  }
  REQUIRE(definition.outputs.size() == 1);
  CHECK(definition.outputs[0].name == "output");
  CHECK(definition.inputs[3].shape == std::vector<std::string>{"batch_size", "vision_seq_len", "thw_dim"});
  REQUIRE(definition.axes.size() == 10);
  CHECK(definition.axes[0].name == "batch_size");
  CHECK_FALSE(definition.axes[0].is_constant);
  const auto head_dim = std::find_if(definition.axes.begin(), definition.axes.end(),
                                     [](const AxisDefinition& axis) { return axis.name == "head_dim"; });
  REQUIRE(head_dim != definition.axes.end());
  CHECK(head_dim->is_constant);
  CHECK(head_dim->value == 128);
}

TEST_CASE("a suite file without a definition beside it uses the built-in definition", "[suite]") {
  ScratchFolder folder;
  const auto lines = vlb::testing::builtin_workload_lines();
  const auto file = folder.write("my_cases.jsonl", vlb::testing::join_lines({lines[15], lines[8]}));
  const Suite suite = load_suite(file.string(), source_workloads_dir());
  CHECK(suite.name == "my_cases");
  CHECK(suite.workloads_path == file);
  CHECK(suite.definition.path == source_workloads_dir() / "definition.json");
  REQUIRE(suite.workloads.size() == 2);
  CHECK(suite.workloads[0].shape == ProblemShape{2, 128, 196});
  CHECK(suite.workloads[1].shape == ProblemShape{8, 128, 196});
}

TEST_CASE("a suite file with a definition beside it uses that definition", "[suite]") {
  ScratchFolder folder;
  auto definition = vlb::testing::builtin_definition_json();
  definition["axes"]["head_dim"]["value"] = 64;  // proves which definition is read: this one is rejected
  folder.write("definition.json", definition.dump(2));
  const auto file = folder.write("cases.jsonl", vlb::testing::join_lines({vlb::testing::builtin_workload_lines()[0]}));
  vlb::testing::require_input_error([&] { load_suite(file.string(), source_workloads_dir()); },
                                    {(folder.path() / "definition.json").string(), "axes.head_dim.value", "128"});
}

TEST_CASE("a definition.json beside a suite file that is no readable file fails as that definition", "[suite]") {
  // Issue 24: a folder or a symbolic link loop there was silently replaced by the built-in definition.
  ScratchFolder folder;
  const auto file = folder.write("cases.jsonl", vlb::testing::join_lines({vlb::testing::builtin_workload_lines()[0]}));
  const auto definition = folder.path() / "definition.json";
  SECTION("a folder") {
    std::filesystem::create_directory(definition);
    vlb::testing::require_input_error([&] { load_suite(file.string(), source_workloads_dir()); },
                                      {definition.string(), "it is a folder, not a file"});
  }
  SECTION("a symbolic link loop") {
    std::filesystem::create_symlink("definition.json", definition);
    vlb::testing::require_input_error([&] { load_suite(file.string(), source_workloads_dir()); },
                                      {definition.string(), "symbolic link that leads in a loop"});
  }
}

TEST_CASE("a workloads folder that is missing or a file is named as the folder", "[suite]") {
  ScratchFolder folder;
  const auto file = folder.write("not-a-folder", "x");
  vlb::testing::require_input_error([&] { load_suite("all", folder.path() / "absent"); },
                                    {"workloads folder", "absent", "does not exist", "--workloads-dir"});
  vlb::testing::require_input_error([&] { load_suite("all", file); }, {"workloads folder", "is not a folder"});
}

TEST_CASE("a missing suite file or folder is an InputError naming the path", "[suite]") {
  ScratchFolder folder;
  const std::string missing = (folder.path() / "no_such_suite.jsonl").string();
  vlb::testing::require_input_error([&] { load_suite(missing, source_workloads_dir()); }, {missing, "not found"});
  vlb::testing::require_input_error([&] { load_suite("all", folder.path()); },
                                    {(folder.path() / "definition.json").string(), "not found"});
  vlb::testing::require_input_error([&] { load_suite(folder.path().string(), source_workloads_dir()); },
                                    {folder.path().string(), "folder"});
}

TEST_CASE("default_workloads_dir follows VLBENCH_WORKLOADS_DIR, else the source tree", "[suite]") {
  const char* previous = std::getenv("VLBENCH_WORKLOADS_DIR");
  const std::string saved = previous != nullptr ? previous : "";
  ::setenv("VLBENCH_WORKLOADS_DIR", "/some/where/else", 1);
  CHECK(default_workloads_dir() == std::filesystem::path("/some/where/else"));
  ::unsetenv("VLBENCH_WORKLOADS_DIR");
  const std::filesystem::path fallback = default_workloads_dir();
#ifdef VLBENCH_SOURCE_WORKLOADS_DIR
  CHECK(std::filesystem::equivalent(fallback, source_workloads_dir()));
#else
  CHECK(fallback == std::filesystem::path("workloads"));
#endif
  if (previous != nullptr) ::setenv("VLBENCH_WORKLOADS_DIR", saved.c_str(), 1);
}
