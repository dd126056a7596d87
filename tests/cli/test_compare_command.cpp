// `vlbench compare` on the real binary: exit 1 when a case is slower beyond the threshold (so CI can gate on it), 0
// otherwise, 2 for a folder or a file with impossible values; --json for machines.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using vlb::testing::run_vlbench;

const fs::path kTemplateResults = fs::path(VLBENCH_SOURCE_DIR) / "results" / "h200" / "template.json";

// The real results file with case `index`'s samples and their statistics multiplied by `factor` (the reader checks
// that the statistics are those of the samples).
json scaled(json run, std::size_t index, double factor) {
  json& timing = run.at("cases").at(index).at("timing");
  for (json& sample : timing.at("samples_ms")) sample = sample.get<double>() * factor;
  for (auto& [key, value] : timing.at("stats").items()) {
    if (key != "count") value = value.get<double>() * factor;
  }
  return run;
}

TEST_CASE("compare exits 1 when a case is slower beyond the threshold, 0 when not", "[cli][compare]") {
  const vlb::testing::ScratchFolder folder;
  const json original = json::parse(vlb::testing::read_text(kTemplateResults));
  const fs::path a = folder.write("a.json", original.dump());
  const fs::path slower = folder.write("slower.json", scaled(original, 3, 1.11).dump());
  const fs::path slightly = folder.write("slightly.json", scaled(original, 3, 1.02).dump());

  const auto gated = run_vlbench({"compare", a.string(), slower.string()});
  INFO(gated.output);
  CHECK(gated.exit_code == 1);
  CHECK_THAT(gated.output, Catch::Contains("slower on 1"));

  const auto within = run_vlbench({"compare", a.string(), slightly.string()});
  INFO(within.output);
  CHECK(within.exit_code == 0);
  CHECK(run_vlbench({"compare", a.string(), slower.string(), "--threshold", "0.2"}).exit_code == 0);

  const auto as_json = run_vlbench({"compare", a.string(), slower.string(), "--json"});
  CHECK(as_json.exit_code == 1);
  const json document = json::parse(as_json.output);
  CHECK(document.at("slower") == 1);
  CHECK(document.at("rows").size() == original.at("cases").size());
  CHECK(document.at("rows")[3].at("verdict") == "slower");
  CHECK(document.at("rows")[3].at("ratio").get<double>() == Approx(1.11));
}

TEST_CASE("compare refuses a folder and impossible latencies with exit 2", "[cli][compare]") {
  const vlb::testing::ScratchFolder folder;
  const json original = json::parse(vlb::testing::read_text(kTemplateResults));
  const fs::path a = folder.write("a.json", original.dump());
  json zero = original;
  zero.at("cases")[0].at("timing").at("stats").at("median") = 0.0;
  json negative = original;
  negative.at("cases")[1].at("timing").at("samples_ms")[4] = -1.0;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {folder.path().string(), "it is a folder"},
      {folder.write("zero.json", zero.dump()).string(), "a PASSED case's median latency is positive"},
      {folder.write("negative.json", negative.dump()).string(), "sample 4 is -1"},
  };
  for (const auto& [path, expected] : bad) {
    const auto result = run_vlbench({"compare", a.string(), path});
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(expected));
  }
}

}  // namespace
