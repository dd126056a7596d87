// The documented exit codes, checked on the real binary (README, "Exit codes").
#include <catch2/catch.hpp>

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

TEST_CASE("registrations that failed before main are reported with exit 2", "[cli]") {
  const std::string binary = std::string(VLBENCH_BINARY_DIR) + "/vlbench_broken_registration";
  for (const std::vector<std::string>& arguments : {std::vector<std::string>{"--list"},
                                                     std::vector<std::string>{"--solution", "template"}}) {
    const auto result = vlb::testing::run_process(binary, arguments);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("vlbench: error: solutions could not be registered"));
    CHECK_THAT(result.output, Catch::Contains("solution 'template' is registered twice"));
    CHECK_THAT(result.output, Catch::Contains("ThrowingDescribe::describe() threw: metadata file missing"));
  }
  // --version and --help still work, so the build can be identified.
  CHECK(vlb::testing::run_process(binary, {"--version"}).exit_code == 0);
}

TEST_CASE("bad usage and bad input exit 2 with a message", "[cli]") {
  const std::vector<std::vector<std::string>> bad = {
      {"--solution", "no_such_solution"},
      {"--solution", "reference", "--case", "99"},
      {"--solution", "reference", "--case", "0,-1,196"},
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

TEST_CASE("--help documents the exit codes and exits 0", "[cli]") {
  const auto result = run_vlbench({"--help"});
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("Exit codes"));
}
