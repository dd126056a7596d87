// The command line of running at scale: --devices, --shard and `vlbench merge`, parsed and run on the real binary
// (everything here needs no GPU).
#include <catch2/catch.hpp>

#include <random>
#include <regex>
#include <set>

#include "harness/cli/command_line.hpp"
#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "support/process.hpp"
#include "support/run_fixtures.hpp"
#include "support/scratch_folder.hpp"

using vlb::cli::Command;
using vlb::cli::CommandLine;
using vlb::testing::builtin_cases;
using vlb::testing::run_vlbench;
using vlb::testing::uuids_in;

namespace {

// A results file of `solution` over the given built-in cases, as one host would have written it.
vlb::RunRecord host_run(const std::string& solution, const std::vector<int>& positions, const std::string& host,
                        std::mt19937_64& rng) {
  const vlb::SelectedCases suite = builtin_cases();
  vlb::RunRecord run = vlb::testing::fixture_header({solution}, 20260);
  run.environment.hostname = host;
  for (int position : positions) run.cases.push_back(vlb::testing::fixture_case(solution, suite.cases[position], rng));
  run.summary = vlb::summarize(run.cases, 12.5);
  return run;
}

}  // namespace

TEST_CASE("--devices and --shard become the plan's devices and shards", "[cli][scaleout]") {
  CommandLine command_line;
  const auto all = command_line.parse({"--solution", "reference", "--devices", "all"});
  REQUIRE(all.command == Command::kRun);
  REQUIRE(all.plan.devices.has_value());
  CHECK(*all.plan.devices == vlb::DeviceList{true, {}});
  CHECK(all.plan.shards.empty());
  const auto listed = command_line.parse({"-s", "reference", "--devices", "2,0", "--shard", "1/3"});
  CHECK(*listed.plan.devices == vlb::DeviceList{false, {2, 0}});
  CHECK(listed.plan.shards == std::vector<vlb::ShardSpec>{{1, 3}});
  const auto plain = command_line.parse({"-s", "reference"});  // the parser is reused: nothing carries over
  CHECK_FALSE(plain.plan.devices.has_value());
  CHECK(plain.plan.shards.empty());
  const auto list = command_line.parse({"--list", "--shard", "0/2"});
  CHECK(list.command == Command::kList);
  CHECK(list.plan.shards == std::vector<vlb::ShardSpec>{{0, 2}});

  CHECK_THROWS_WITH(command_line.parse({"-s", "reference", "--device", "1", "--devices", "0"}),
                    Catch::Contains("--device and --devices exclude each other"));
  CHECK_THROWS_AS(command_line.parse({"-s", "reference", "--devices", "0,0"}), vlb::UsageError);
  CHECK_THROWS_AS(command_line.parse({"-s", "reference", "--devices", ""}), vlb::UsageError);
  CHECK_THROWS_AS(command_line.parse({"-s", "reference", "--shard", "3/3"}), vlb::UsageError);
  const auto worker = command_line.parse({"--device-worker", "/tmp/vlbench-devices-x/gpu1"});
  CHECK(worker.command == Command::kDeviceWorker);
  CHECK(worker.worker_folder == "/tmp/vlbench-devices-x/gpu1");
}

TEST_CASE("merge takes files, an output and --force", "[cli][scaleout]") {
  CommandLine command_line;
  const auto request = command_line.parse({"merge", "a.json", "b.json.partial.jsonl", "-o", "all.json", "--force"});
  REQUIRE(request.command == Command::kMerge);
  CHECK(request.merge.inputs == std::vector<std::filesystem::path>{"a.json", "b.json.partial.jsonl"});
  CHECK(request.merge.output == "all.json");
  CHECK(request.merge.force);
  CHECK(request.merge.argv ==
        std::vector<std::string>{"vlbench", "merge", "a.json", "b.json.partial.jsonl", "-o", "all.json", "--force"});
  CHECK_FALSE(command_line.parse({"merge", "a.json", "--output", "x.json"}).merge.force);
  CHECK_THROWS_AS(command_line.parse({"merge", "a.json"}), vlb::UsageError);   // no output
  CHECK_THROWS_AS(command_line.parse({"merge", "-o", "x.json"}), vlb::UsageError);  // no input
}

TEST_CASE("--list --shard i/n lists that share of the suite, and the shares cover it", "[cli][scaleout]") {
  const vlb::SelectedCases suite = builtin_cases();
  std::set<std::string> covered;
  for (int index = 0; index < 4; ++index) {
    const std::string shard = std::to_string(index) + "/4";
    const auto result = run_vlbench({"--list", "--shard", shard});
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    std::set<std::string> expected;
    for (int position : vlb::shard_positions(suite.cases, {index, 4})) expected.insert(suite.cases[position].uuid);
    CHECK_THAT(result.output, Catch::Contains(std::to_string(expected.size()) + " cases (shard " + shard + ")"));
    CHECK(uuids_in(result.output) == expected);
    covered.insert(expected.begin(), expected.end());
  }
  CHECK(covered.size() == 16);
}

TEST_CASE("bad --devices and --shard exit 2 before any GPU work; no GPU exits 3", "[cli][scaleout]") {
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"-s", "reference", "--shard", "4/4"},
        std::vector<std::string>{"-s", "reference", "--shard", "two"},
        std::vector<std::string>{"-s", "reference", "--devices", "0,0"},
        std::vector<std::string>{"-s", "reference", "--devices", "gpu0"},
        std::vector<std::string>{"-s", "reference", "--device", "0", "--devices", "all"},
        std::vector<std::string>{"-s", "no_such_solution", "--devices", "all"},
        std::vector<std::string>{"-s", "reference", "--devices", "all", "--json", "/nonexistent/run.json"}}) {
    const auto result = run_vlbench(arguments);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("vlbench: error:"));
  }
  const auto no_gpu = vlb::testing::run_process(vlb::testing::vlbench_binary(), {"-s", "reference", "--devices", "all"},
                                                {"CUDA_VISIBLE_DEVICES="});
  INFO(no_gpu.output);
  CHECK(no_gpu.exit_code == 3);
  CHECK_THAT(no_gpu.output, Catch::Contains("no CUDA GPU found"));
}

TEST_CASE("vlbench merge writes one validated file; refuses runs that do not compare unless forced",
          "[cli][scaleout]") {
  const vlb::testing::ScratchFolder folder;
  std::mt19937_64 rng(5150);
  const auto first = folder.file("host-a.json"), second = folder.file("host-b.json"), merged = folder.file("all.json");
  vlb::write_results_file(first, host_run("template", {0, 2, 4}, "host-a", rng));
  vlb::write_results_file(second, host_run("template", {1, 3}, "host-b", rng));
  const auto result = run_vlbench({"merge", first.string(), second.string(), "-o", merged.string()});
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("wrote " + merged.string() + ": 5 case(s) from 2 file(s): 5 passed"));
  const vlb::RunRecord record = vlb::read_results_file(merged);
  REQUIRE(record.cases.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(record.cases[i].case_index == i);
  CHECK(record.environment.hostname == "host-a,host-b");
  CHECK(record.argv == std::vector<std::string>{"vlbench", "merge", first.string(), second.string(), "-o",
                                                merged.string()});

  vlb::RunRecord other_gpu = host_run("template", {5}, "host-c", rng);
  other_gpu.environment.gpu_name = "NVIDIA H100 80GB HBM3";
  const auto third = folder.file("host-c.json");
  vlb::write_results_file(third, other_gpu);
  const auto refused = run_vlbench({"merge", first.string(), third.string(), "-o", folder.file("x.json").string()});
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Catch::Contains("GPU model") && Catch::Contains("pass --force"));
  CHECK_FALSE(std::filesystem::exists(folder.file("x.json")));
  const auto forced =
      run_vlbench({"merge", first.string(), third.string(), "-o", folder.file("x.json").string(), "--force"});
  INFO(forced.output);
  CHECK(forced.exit_code == 0);
  CHECK_THAT(forced.output, Catch::Contains("merged despite --force") && Catch::Contains("NVIDIA H100 80GB HBM3"));
  CHECK(vlb::read_results_file(folder.file("x.json")).cases.size() == 4);

  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"merge", folder.file("missing.json").string(), "-o", merged.string()},
        std::vector<std::string>{"merge", folder.path().string(), "-o", merged.string()},
        std::vector<std::string>{"merge", first.string(), "-o", folder.file("no-such/all.json").string()}}) {
    const auto bad = run_vlbench(arguments);
    INFO(bad.output);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.output, Catch::Contains("vlbench: error:"));
  }
}
