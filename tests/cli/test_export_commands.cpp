// `vlbench export` and `vlbench package` on the real binary: the export unit writes, the CLI says what was written.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "harness/report/results_json.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;
using vlb::testing::run_vlbench;

const fs::path kResultsFolder = fs::path(VLBENCH_SOURCE_DIR) / "results" / "h200";

TEST_CASE("vlbench export writes a trace per evaluated case of a real results file and says how many", "[cli]") {
  const vlb::testing::ScratchFolder folder;
  const fs::path traces = folder.file("traces.jsonl");
  const fs::path results = kResultsFolder / "template.json";
  const auto exported = run_vlbench(
      {"export", results.string(), "--reference", (kResultsFolder / "reference.json").string(), "-o", traces.string()});
  INFO(exported.output);
  REQUIRE(exported.exit_code == 0);

  std::istringstream lines(vlb::testing::read_text(traces));
  std::size_t written = 0;
  for (std::string line; std::getline(lines, line); ++written) {
    REQUIRE(nlohmann::json::parse(line).at("solution") == "template");
  }
  const vlb::RunRecord run = vlb::read_results_file(results);
  REQUIRE(written > 0);
  REQUIRE(written <= run.cases.size());
  CHECK_THAT(exported.output, Catch::StartsWith("wrote " + std::to_string(written) + " trace(s) to " + traces.string()));
}

TEST_CASE("vlbench package writes the template's package and names its entry point", "[cli]") {
  const vlb::testing::ScratchFolder folder;
  const fs::path package_path = folder.file("template.solution.json");
  const auto packaged = run_vlbench({"package", "--solution", "template", "-o", package_path.string()});
  INFO(packaged.output);
  REQUIRE(packaged.exit_code == 0);
  const nlohmann::json package = nlohmann::json::parse(vlb::testing::read_text(package_path));
  CHECK(package.at("name") == "template");
  CHECK(packaged.output == "wrote " + package_path.string() + ": solution 'template', " +
                               std::to_string(package.at("sources").size()) +
                               " source file(s), entry point harness_export_torch_binding.cpp::run\n");

  const auto unknown = run_vlbench({"package", "--solution", "no_such_solution", "-o", package_path.string()});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("unknown solution 'no_such_solution'"));
}

}  // namespace
