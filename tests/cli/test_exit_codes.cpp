// The documented exit codes, checked on the real binary (README, "Exit codes").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "support/process.hpp"
#include "support/scratch_folder.hpp"

using vlb::testing::run_vlbench;

TEST_CASE("--list prints the 16 cases and the registered solutions without a GPU", "[cli]") {
  const auto result = run_vlbench({"--list"});
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("16 cases"));
  CHECK_THAT(result.output, Catch::Contains("d48e8b5b-db2e-598e-9168-8e5c1b78d484"));
  CHECK_THAT(result.output, Catch::Contains("f36740f8-c877-5855-af92-5f7fd3522d9b"));
  CHECK_THAT(result.output, Catch::Contains("reference"));
  CHECK_THAT(result.output, Catch::Contains("template"));
}

TEST_CASE("registrations that failed in a solution module are reported with exit 2", "[cli]") {
  // The build's own modules and one that registers a second "template" and a solution whose describe() throws.
  const std::string modules = vlb::testing::solution_modules_entry(
      {vlb::testing::build_modules_folder(), vlb::testing::test_module("broken_registrations")});
  const std::string binary = vlb::testing::vlbench_binary();
  for (const std::vector<std::string>& arguments : {std::vector<std::string>{"--list"},
                                                     std::vector<std::string>{"--solution", "template"}}) {
    const auto result = vlb::testing::run_process(binary, arguments, {modules});
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("vlbench: error: solutions could not be registered"));
    // Both folders, in the order the modules were described.
    CHECK_THAT(result.output, Catch::Contains("solution 'template' is registered twice: in "));
    CHECK_THAT(result.output, Catch::Contains("solutions/template/ (") && Catch::Contains("tests/cli/ ("));
    CHECK_THAT(result.output, Catch::Contains("ThrowingDescribe::describe() threw: metadata file missing"));
  }
  // --version and --help still work, so the build can be identified.
  CHECK(vlb::testing::run_process(binary, {"--version"}, {modules}).exit_code == 0);
}

TEST_CASE("bad usage and bad input exit 2 with a message", "[cli]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--solution", "no_such_solution"},
      {"--solution", "reference", "--case", "99"},
      {"--solution", "reference", "--case", "0,-1,196"},
      {"--solution", "reference", "-c", "2,373,588"},          // the old spelling of a size: 373 is no index
      {"--solution", "reference", "--shape", "2,373,588"},
      {"--solution", "reference", "--shape", "0x64x196"},
      {"--solution", "reference", "--suite", "/nonexistent/suite.jsonl"},
      {"--solution", "reference", "--iterations", "zero"},
  };
  for (const auto& arguments : bad) {
    const auto result = run_vlbench(arguments);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("vlbench: error:"));
  }
}

TEST_CASE("a malformed suite file and an unwritable results path exit 2 before any GPU work", "[cli]") {
  const vlb::testing::ScratchFolder folder;
  const auto suite = folder.write("broken.jsonl",
                                  "{\"definition\": \"034_vision_language_cross_attention_fusion\", \"workload\": {\n");
  const auto bad_suite = run_vlbench({"--solution", "reference", "--suite", suite.string()});
  INFO(bad_suite.output);
  CHECK(bad_suite.exit_code == 2);
  CHECK_THAT(bad_suite.output, Catch::Contains("broken.jsonl"));

  const auto results = folder.file("no-such-folder/results.json");
  const auto unwritable = run_vlbench({"--solution", "reference", "--case", "15", "--json", results.string()});
  INFO(unwritable.output);
  CHECK(unwritable.exit_code == 2);
  CHECK_THAT(unwritable.output, Catch::Contains("cannot write results"));
  CHECK_FALSE(std::filesystem::exists(results));
}

TEST_CASE("without a GPU a run says so in one line and exits 3", "[cli]") {
  // Hiding every device makes any machine one without a GPU.
  const auto result = vlb::testing::run_process(vlb::testing::vlbench_binary(),
                                                {"--solution", "reference", "--case", "15"}, {"CUDA_VISIBLE_DEVICES="});
  INFO(result.output);
  CHECK(result.exit_code == 3);
  CHECK_THAT(result.output, Catch::Contains("no CUDA GPU"));
}

TEST_CASE("--dry-run checks every input without a GPU and exits 0, or 2 naming what is wrong", "[cli]") {
  const vlb::testing::ScratchFolder folder;
  const std::vector<std::string> hidden_gpu = {"CUDA_VISIBLE_DEVICES="};
  const auto dry = vlb::testing::run_process(
      vlb::testing::vlbench_binary(),
      {"-s", "template", "-c", "0,15", "--shape", "2x373x588", "--gpu-spec", "H200_SXM", "--json",
       folder.file("run.json").string(), "--dump", folder.file("dumps/new").string(), "--dry-run"},
      hidden_gpu);
  INFO(dry.output);
  REQUIRE(dry.exit_code == 0);
  for (const char* expected : {"3 case(s) x 1 solution(s)", "#0 d48e8b5b", "#15 f36740f8", "custom B=2 Lq=373 Lv=588",
                               "GPU spec: H200_SXM"}) {
    CHECK_THAT(dry.output, Catch::Contains(expected));
  }
  CHECK_FALSE(std::filesystem::exists(folder.file("run.json")));  // nothing written
  CHECK_FALSE(std::filesystem::exists(folder.file("dumps")));

  // A share of the cases over chosen GPUs: the share is listed, the GPUs named (they are checked when it runs).
  const auto shared = vlb::testing::run_process(
      vlb::testing::vlbench_binary(), {"-s", "template", "--shard", "1/4", "--devices", "0,2", "--dry-run"}, hidden_gpu);
  INFO(shared.output);
  REQUIRE(shared.exit_code == 0);
  CHECK_THAT(shared.output, Catch::Contains("4 case(s) x 1 solution(s)"));
  CHECK_THAT(shared.output, Catch::Contains("Shard: 1/4"));
  CHECK_THAT(shared.output, Catch::Contains("GPUs: 0,2"));

  const auto baseline = folder.write("baseline.json", "{\"gpu_key\": ");
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--gpu-spec", "NO_SUCH_GPU"}, "unknown GPU spec 'NO_SUCH_GPU'"},
      {{"--baseline", baseline.string()}, "baseline.json"},
      {{"--baseline", folder.file("missing.json").string()}, "missing.json"},
      {{"--json", folder.path().string()}, "it is a folder"},
      {{"--dump", baseline.string()}, "not a writable folder"},
  };
  for (const auto& [options, expected] : bad) {
    std::vector<std::string> arguments = {"-s", "template", "-c", "15", "--dry-run"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    const auto result = vlb::testing::run_process(vlb::testing::vlbench_binary(), arguments, hidden_gpu);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(expected));
  }
}

TEST_CASE("a real run checks what --dry-run checks before it looks for a GPU", "[cli]") {
  const auto result = vlb::testing::run_process(vlb::testing::vlbench_binary(),
                                                {"-s", "template", "-c", "15", "--gpu-spec", "NO_SUCH_GPU"},
                                                {"CUDA_VISIBLE_DEVICES="});
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Catch::Contains("unknown GPU spec"));
}

TEST_CASE("--list --json describes the suite and the solutions for machines", "[cli]") {
  const auto result = run_vlbench({"--list", "--json", "-c", "3", "--shape", "1x64x196"});
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const nlohmann::json listing = nlohmann::json::parse(result.output);
  REQUIRE(listing.at("cases").size() == 2);
  CHECK(listing.at("cases")[0].at("uuid") == "9df4cc20-4c6d-5b70-ad81-8185ad4755b0");
  CHECK(listing.at("cases")[0].at("shape").at("lang_seq_len") == 1024);
  CHECK(listing.at("cases")[1].at("index") == -1);
  CHECK(listing.at("suite").at("definition") == "034_vision_language_cross_attention_fusion");
  bool template_listed = false;
  for (const auto& solution : listing.at("solutions")) template_listed |= solution.at("name") == "template";
  CHECK(template_listed);
}

TEST_CASE("--help documents the exit codes and exits 0", "[cli]") {
  const auto result = run_vlbench({"--help"});
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("Exit codes"));
}
