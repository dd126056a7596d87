// --devices, --shard and merge on real GPUs: the fan-out through vlbench's own device workers, on GPU 0 alone and on
// every GPU of the host, a device worker that dies, and shards run one after the other then merged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/core/device_info.hpp"
#include "harness/report/results_json.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

// Small and quick: three official cases, two rounds, a short timing.
const std::vector<std::string> kQuickRun = {"-c", "15", "-c", "8", "-c", "14", "--rounds", "2", "--warmup", "2",
                                            "--iterations", "5"};

std::vector<std::string> with(std::vector<std::string> arguments, const std::vector<std::string>& more) {
  arguments.insert(arguments.end(), more.begin(), more.end());
  return arguments;
}

vlb::RunRecord run_and_read(const std::string& binary, const std::vector<std::string>& arguments,
                            const std::filesystem::path& json, int expected_exit,
                            const std::vector<std::string>& environment = {}) {
  const auto result = vlb::testing::run_process(binary, with(arguments, {"--json", json.string()}), environment);
  INFO(result.output);
  REQUIRE(result.exit_code == expected_exit);
  REQUIRE_FALSE(std::filesystem::exists(vlb::partial_results_path(json)));
  return vlb::read_results_file(json);
}

std::size_t count_of(const std::string& text, char c) { return std::count(text.begin(), text.end(), c); }

void check_passed_in_order(const vlb::RunRecord& record, const std::vector<int>& indices) {
  REQUIRE(record.cases.size() == indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const vlb::CaseResult& result = record.cases[i];
    INFO(result.solution << " #" << result.case_index << ": " << result.reason);
    CHECK(result.case_index == indices[i]);
    CHECK(result.status == vlb::CaseStatus::kPassed);
    REQUIRE(result.timing.has_value());
    CHECK(result.timing->samples_ms.size() == 5);
    CHECK(result.timing->stats.median > 0);
    CHECK(result.correctness.size() >= 2);
  }
  REQUIRE(record.summary.has_value());
  CHECK(record.summary->passed == static_cast<int>(indices.size()));
}

}  // namespace

TEST_CASE("--devices 0: one device worker on GPU 0, results as a run on one GPU writes them", "[cli][devices][gpu]") {
  const vlb::testing::ScratchFolder scratch;
  const vlb::RunRecord record = run_and_read(vlb::testing::vlbench_binary(),
                                             with({"-s", "template", "--devices", "0"}, kQuickRun),
                                             scratch.file("devices0.json"), 0);
  check_passed_in_order(record, {15, 8, 14});
  CHECK(record.environment.gpu_uuid == vlb::query_device(0).uuid);
  CHECK(record.environment.gpu_name == vlb::query_device(0).name);
  CHECK(std::find(record.argv.begin(), record.argv.end(), "--devices") != record.argv.end());
}

TEST_CASE("--devices all: every GPU of the host, one worker each, one results file", "[cli][devices][gpu]") {
  const vlb::testing::ScratchFolder scratch;
  const vlb::RunRecord record = run_and_read(vlb::testing::vlbench_binary(),
                                             with({"-s", "template", "--devices", "all", "-c", "0"}, kQuickRun),
                                             scratch.file("all.json"), 0);
  check_passed_in_order(record, {0, 15, 8, 14});
  // Every GPU is named, in ordinal order.
  const int gpus = vlb::device_count();
  CHECK(count_of(record.environment.gpu_uuid, ',') == static_cast<std::size_t>(gpus - 1));
  CHECK(record.environment.gpu_uuid.starts_with(vlb::query_device(0).uuid));
}

TEST_CASE("a device worker that dies costs its unfinished cases; the run ends with every case reported",
          "[cli][devices][gpu]") {
  // In the trusted in-process mode a crashing solution takes its device worker down with it.
  const vlb::testing::ScratchFolder scratch;
  const vlb::RunRecord record = run_and_read(
      vlb::testing::vlbench_binary(),
      with({"-s", "template,adversarial_crashes_host", "--no-isolation", "--devices", "0"}, kQuickRun),
      scratch.file("crash.json"), 1,
      {vlb::testing::solution_modules_entry({vlb::testing::test_module("adversaries")})});
  REQUIRE(record.cases.size() == 6);
  for (int i = 0; i < 3; ++i) {
    INFO(record.cases[i].reason);
    CHECK(record.cases[i].solution == "template");
    CHECK(record.cases[i].status == vlb::CaseStatus::kPassed);
  }
  // The crashing solution's first case killed the worker (SIGSEGV); its other cases never ran.
  CHECK_THAT(record.cases[3].reason, Catch::Contains("the device worker for GPU 0 was killed by signal 11") &&
                                         Catch::Contains("while running this case"));
  for (int i = 3; i < 6; ++i) {
    INFO(record.cases[i].reason);
    CHECK(record.cases[i].solution == "adversarial_crashes_host");
    CHECK(record.cases[i].status == vlb::CaseStatus::kRuntimeError);
  }
  CHECK_THAT(record.cases[4].reason, Catch::StartsWith("not run: the device worker for GPU 0"));
  CHECK(record.summary->failed == 3);
}

TEST_CASE("shards run one by one merge into the whole selection", "[cli][devices][gpu]") {
  const vlb::testing::ScratchFolder scratch;
  const std::string binary = vlb::testing::vlbench_binary();
  const vlb::RunRecord first = run_and_read(binary, with({"-s", "template", "--shard", "0/2"}, kQuickRun),
                                            scratch.file("shard-0-of-2.json"), 0);
  const vlb::RunRecord second = run_and_read(binary, with({"-s", "template", "--shard", "1/2"}, kQuickRun),
                                             scratch.file("shard-1-of-2.json"), 0);
  CHECK(first.cases.size() + second.cases.size() == 3);
  CHECK_FALSE(first.cases.empty());
  CHECK_FALSE(second.cases.empty());
  const auto merged_path = scratch.file("all.json");
  const auto merged = vlb::testing::run_process(
      binary, {"merge", scratch.file("shard-0-of-2.json").string(), scratch.file("shard-1-of-2.json").string(), "-o",
               merged_path.string()});
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  check_passed_in_order(vlb::read_results_file(merged_path), {8, 14, 15});  // merged runs list cases by index
}
