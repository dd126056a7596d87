// The --devices fan-out, without a GPU: stand-in device workers (shell scripts) report prepared results the way
// vlbench's own do (the partial file growing case by case, then the complete file by rename, then the partial file
// removed), while this process follows them, fills in what a dead worker left, and writes the one results file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include "harness/core/json_value.hpp"
#include "harness/report/results_json.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "harness/scaleout/device_fanout.hpp"
#include "harness/scaleout/device_worker.hpp"
#include "harness/plan/run_plan_json.hpp"
#include "report/support_capture.hpp"
#include "support/run_fixtures.hpp"
#include "support/scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;

vlb::RunPlan fanout_plan(const fs::path& json, std::vector<int> devices) {
  vlb::RunPlan plan;
  plan.workloads_dir = vlb::default_workloads_dir();
  plan.solutions = {"template", "reference"};
  plan.case_selectors = {"15", "8", "0", "2x37x196", "14", "10"};
  plan.seed = 4242;
  plan.devices = vlb::DeviceList{false, std::move(devices)};
  plan.json_path = json;
  plan.argv = {"vlbench", "-s", "template,reference", "--devices", "(test)"};
  return plan;
}

// What a stand-in worker does after reporting its cases.
enum class Ending { kCompletes, kDies, kFailsToStart };

// Stand-ins live in root/gpu<N>/ (the name of the worker folder they are given), each with the lines to report.
class StandIns {
 public:
  explicit StandIns(fs::path root) : root_(std::move(root)) {}

  void add(int device, const vlb::RunRecord& header, const std::vector<vlb::CaseResult>& cases, Ending ending,
           std::size_t reported) const {
    const fs::path here = root_ / ("gpu" + std::to_string(device));
    fs::create_directories(here);
    vlb::RunRecord complete = header;
    std::ofstream lines(here / "lines.jsonl");
    lines << vlb::dump_json(vlb::to_json(header)) << '\n';
    for (std::size_t i = 0; i < reported; ++i) lines << vlb::dump_json(vlb::to_json(cases[i])) << '\n';
    complete.cases.assign(cases.begin(), cases.begin() + static_cast<long>(reported));
    complete.summary = vlb::summarize(complete.cases, 3.5);
    vlb::write_results_file(here / "complete.json", complete);
    const std::string end = ending == Ending::kCompletes
                                ? "cp \"$here/complete.json\" \"$out/.results.json.tmp\"\n"
                                  "mv \"$out/.results.json.tmp\" \"$out/results.json\"\n"
                                  "rm \"$out/results.json.partial.jsonl\"\nexit 1\n"
                                : "echo 'vlbench: error: CUDA error: unspecified launch failure'\nkill -9 $$\n";
    const std::string start = ending == Ending::kFailsToStart
                                  ? "echo 'vlbench: error: CUDA error: no CUDA-capable device is detected'\nexit 3\n"
                                  : "";
    std::ofstream(here / "run.sh") << "set -e\nout=\"$1\"\nhere='" << here.string() << "'\n"
                                   << "cp \"$out/plan.json\" \"$here/plan_seen.json\"\n" << start
                                   << "echo \"[1/1] progress of the stand-in\"\n"
                                   << "while IFS= read -r line; do\n"
                                   << "  printf '%s\\n' \"$line\" >> \"$out/results.json.partial.jsonl\"\n"
                                   << "  sleep 0.05\ndone < \"$here/lines.jsonl\"\n"
                                   << end;
  }

  vlb::DeviceWorkerLaunch launch() const {
    return {"/bin/sh", [root = root_](const fs::path& folder) {
              return std::vector<std::string>{"sh", (root / folder.filename() / "run.sh").string(), folder.string()};
            }};
  }

  std::optional<vlb::RunPlan> plan_seen(int device) const {
    const fs::path file = root_ / ("gpu" + std::to_string(device)) / "plan_seen.json";
    if (!fs::exists(file)) return std::nullopt;
    return vlb::read_plan_file(file);
  }

 private:
  fs::path root_;
};

// What each lane (one per device) runs, and the results a worker for it reports, in its run order.
struct Share {
  std::vector<int> positions;
  std::vector<vlb::CaseResult> cases;
};

std::vector<Share> prepare_shares(const vlb::RunPlan& plan, const vlb::SelectedCases& selected, int lanes,
                                  std::mt19937_64& rng) {
  std::vector<Share> shares(lanes);
  for (int lane = 0; lane < lanes; ++lane) {
    shares[lane].positions = vlb::shard_positions(selected.cases, {lane, lanes});
    for (const std::string& solution : plan.solutions) {
      for (int position : shares[lane].positions) {
        shares[lane].cases.push_back(vlb::testing::fixture_case(solution, selected.cases[position], rng));
      }
    }
  }
  return shares;
}

// The case of (solution, position) among a share's reported cases, or nullopt when the worker never reported it.
std::optional<vlb::CaseResult> reported(const Share& share, std::size_t solution, int position, std::size_t count) {
  const auto found = std::find(share.positions.begin(), share.positions.end(), position);
  if (found == share.positions.end()) return std::nullopt;
  const std::size_t index = solution * share.positions.size() + (found - share.positions.begin());
  if (index >= count) return std::nullopt;
  return share.cases[index];
}

}  // namespace

TEST_CASE("the workers' results merge into one file in run order; a dead worker costs only its unfinished cases",
          "[runner][devices]") {
  const vlb::testing::ScratchFolder scratch;
  const std::vector<int> devices = {0, 1, 2};
  const vlb::RunPlan plan = fanout_plan(scratch.file("run.json"), devices);
  const vlb::SelectedCases selected = vlb::select_plan_cases(plan);
  std::mt19937_64 rng(20261201);
  const std::vector<Share> shares = prepare_shares(plan, selected, 3, rng);
  for (const Share& share : shares) REQUIRE_FALSE(share.positions.empty());
  const vlb::RunRecord header = vlb::testing::fixture_header(plan.solutions, plan.seed);

  const StandIns stand_ins(scratch.file("stand-ins"));
  const std::size_t died_after = 1;  // GPU 1's worker reports one case, then dies
  stand_ins.add(0, header, shares[0].cases, Ending::kCompletes, shares[0].cases.size());
  stand_ins.add(1, header, shares[1].cases, Ending::kDies, died_after);
  stand_ins.add(2, header, shares[2].cases, Ending::kCompletes, shares[2].cases.size());

  std::optional<vlb::RunOutput> output;
  const std::string progress = vlb::test::capture_output(
      [&](std::FILE* out) { output = vlb::fan_out(plan, devices, header, stand_ins.launch(), out); });
  REQUIRE(output.has_value());
  CHECK(output->any_failure);

  // Every (solution, case) once, in the order a run on one GPU has: solutions, then the selected cases.
  const std::vector<vlb::CaseResult>& cases = output->record.cases;
  REQUIRE(cases.size() == plan.solutions.size() * selected.cases.size());
  for (std::size_t solution = 0; solution < plan.solutions.size(); ++solution) {
    for (int position = 0; position < static_cast<int>(selected.cases.size()); ++position) {
      const vlb::CaseResult& result = cases[solution * selected.cases.size() + position];
      INFO(plan.solutions[solution] << " " << selected.cases[position].label());
      CHECK(result.solution == plan.solutions[solution]);
      CHECK(result.case_index == selected.cases[position].index);
      CHECK(result.shape == selected.cases[position].shape);
      std::optional<vlb::CaseResult> expected;
      for (int lane = 0; lane < 3 && !expected; ++lane) {
        const std::size_t count = lane == 1 ? died_after : shares[lane].cases.size();
        expected = reported(shares[lane], solution, position, count);
      }
      if (expected) {
        CHECK(vlb::to_json(result) == vlb::to_json(*expected));
      } else {
        CHECK(result.status == vlb::CaseStatus::kRuntimeError);
        CHECK_THAT(result.reason, Catch::Contains("the device worker for GPU 1 was killed by signal 9") &&
                                      Catch::Contains("unspecified launch failure"));
        CHECK_FALSE(result.timing.has_value());
        // The case it was running when it died, then the ones it never started.
        const bool running = solution * shares[1].positions.size() +
                                 (std::find(shares[1].positions.begin(), shares[1].positions.end(), position) -
                                  shares[1].positions.begin()) ==
                             died_after;
        CHECK_THAT(result.reason, Catch::Contains(running ? "while running this case" : "not run:"));
      }
    }
  }
  // The header is this run's, whatever the workers wrote in theirs; the summary counts every case.
  CHECK(output->record.argv == header.argv);
  CHECK(output->record.environment.gpu_uuid == header.environment.gpu_uuid);
  REQUIRE(output->record.summary.has_value());
  CHECK(output->record.summary->cases == static_cast<int>(cases.size()));
  CHECK(output->record.summary->failed == static_cast<int>(shares[1].cases.size() - died_after));

  // The results file holds the same, validated; no partial file is left.
  const vlb::RunRecord written = vlb::read_results_file(*plan.json_path);
  CHECK(vlb::to_json(written) == vlb::to_json(output->record));
  CHECK_FALSE(fs::exists(vlb::partial_results_path(*plan.json_path)));

  // One progress line per case, counted over the whole run.
  CHECK_THAT(progress, Catch::Contains("[1/12]") && Catch::Contains("[12/12]"));
  CHECK(std::count(progress.begin(), progress.end(), '\n') == 12);

  // Each worker got the plan for its GPU alone: its device, its share, its own results file.
  for (int lane = 0; lane < 3; ++lane) {
    const auto seen = stand_ins.plan_seen(devices[lane]);
    REQUIRE(seen.has_value());
    CHECK(seen->device == devices[lane]);
    CHECK_FALSE(seen->devices.has_value());
    CHECK(seen->shards == std::vector<vlb::ShardSpec>{{lane, 3}});
    REQUIRE(seen->json_path.has_value());
    CHECK(seen->json_path->filename() == "results.json");
    CHECK(seen->json_path->parent_path().filename() == "gpu" + std::to_string(devices[lane]));
    CHECK(seen->solutions == plan.solutions);
    CHECK(seen->case_selectors == plan.case_selectors);
    CHECK(seen->seed == plan.seed);
    // The worker's own selection is exactly its share.
    const vlb::SelectedCases own = vlb::select_plan_cases(*seen);
    REQUIRE(own.cases.size() == shares[lane].positions.size());
    for (std::size_t i = 0; i < own.cases.size(); ++i) {
      CHECK(own.cases[i].label() == selected.cases[shares[lane].positions[i]].label());
    }
  }
}

TEST_CASE("more GPUs than cases: only the GPUs with a share get a worker", "[runner][devices]") {
  const vlb::testing::ScratchFolder scratch;
  const std::vector<int> devices = {3, 1, 0, 2, 5, 4, 7, 6};
  vlb::RunPlan plan = fanout_plan(scratch.file("run.json"), devices);
  plan.case_selectors = {"15", "3", "10"};
  const vlb::SelectedCases selected = vlb::select_plan_cases(plan);
  std::mt19937_64 rng(77);
  const std::vector<Share> shares = prepare_shares(plan, selected, 8, rng);
  const vlb::RunRecord header = vlb::testing::fixture_header(plan.solutions, plan.seed);
  const StandIns stand_ins(scratch.file("stand-ins"));
  for (int lane = 0; lane < 8; ++lane) {
    stand_ins.add(devices[lane], header, shares[lane].cases, Ending::kCompletes, shares[lane].cases.size());
  }
  const vlb::RunOutput output = vlb::fan_out(plan, devices, header, stand_ins.launch(), nullptr);
  CHECK_FALSE(output.any_failure);
  REQUIRE(output.record.cases.size() == 6);
  for (const vlb::CaseResult& result : output.record.cases) CHECK(result.status == vlb::CaseStatus::kPassed);
  int started = 0;
  for (int lane = 0; lane < 8; ++lane) {
    const bool has_share = !shares[lane].positions.empty();
    CHECK(stand_ins.plan_seen(devices[lane]).has_value() == has_share);
    started += has_share;
  }
  CHECK(started == 3);
}

TEST_CASE("a worker that reports a case out of its schedule fails its remaining cases, not the run",
          "[runner][devices]") {
  const vlb::testing::ScratchFolder scratch;
  const std::vector<int> devices = {0, 1};
  const vlb::RunPlan plan = fanout_plan(scratch.file("run.json"), devices);
  const vlb::SelectedCases selected = vlb::select_plan_cases(plan);
  std::mt19937_64 rng(9);
  std::vector<Share> shares = prepare_shares(plan, selected, 2, rng);
  REQUIRE(shares[1].cases.size() >= 2);
  std::vector<vlb::CaseResult> swapped = shares[1].cases;
  std::swap(swapped[0], swapped[1]);
  const vlb::RunRecord header = vlb::testing::fixture_header(plan.solutions, plan.seed);
  const StandIns stand_ins(scratch.file("stand-ins"));
  stand_ins.add(0, header, shares[0].cases, Ending::kCompletes, shares[0].cases.size());
  stand_ins.add(1, header, swapped, Ending::kCompletes, swapped.size());
  const vlb::RunOutput output = vlb::fan_out(plan, devices, header, stand_ins.launch(), nullptr);
  CHECK(output.any_failure);
  int mismatched = 0;
  for (const vlb::CaseResult& result : output.record.cases) {
    if (result.status == vlb::CaseStatus::kRuntimeError) {
      CHECK_THAT(result.reason, Catch::Contains("the device worker for GPU 1 reported") &&
                                    Catch::Contains("build mismatch"));
      ++mismatched;
    } else {
      CHECK(result.status == vlb::CaseStatus::kPassed);
    }
  }
  CHECK(mismatched == static_cast<int>(shares[1].cases.size()));
}

TEST_CASE("a worker that fails before its first case reports every case of its share as not run", "[runner][devices]") {
  const vlb::testing::ScratchFolder scratch;
  const std::vector<int> devices = {0, 1};
  const vlb::RunPlan plan = fanout_plan(scratch.file("run.json"), devices);
  const vlb::SelectedCases selected = vlb::select_plan_cases(plan);
  std::mt19937_64 rng(10);
  const std::vector<Share> shares = prepare_shares(plan, selected, 2, rng);
  const vlb::RunRecord header = vlb::testing::fixture_header(plan.solutions, plan.seed);
  const StandIns stand_ins(scratch.file("stand-ins"));
  stand_ins.add(0, header, shares[0].cases, Ending::kFailsToStart, 0);
  stand_ins.add(1, header, shares[1].cases, Ending::kCompletes, shares[1].cases.size());
  const vlb::RunOutput output = vlb::fan_out(plan, devices, header, stand_ins.launch(), nullptr);
  int not_run = 0;
  for (const vlb::CaseResult& result : output.record.cases) {
    INFO(result.reason);
    if (result.status == vlb::CaseStatus::kPassed) continue;
    CHECK_THAT(result.reason, Catch::StartsWith("not run: the device worker for GPU 0 exited with code 3 before "
                                                "this case") &&
                                  Catch::Contains("no CUDA-capable device"));
    ++not_run;
  }
  CHECK(not_run == static_cast<int>(shares[0].cases.size()));
  CHECK(output.record.summary->passed == static_cast<int>(shares[1].cases.size()));
}
