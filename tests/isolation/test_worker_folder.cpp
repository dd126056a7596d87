// What a parent and its worker exchange: the serialized plan (never a re-parsed command line), and the worker's
// result with the outputs still to be judged.
#include <catch2/catch.hpp>

#include <fstream>

#include "harness/core/errors.hpp"
#include "harness/plan/run_plan_json.hpp"
#include "harness/isolation/worker_folder.hpp"
#include "harness/timing/statistics.hpp"
#include "support/scratch_folder.hpp"

namespace {

// Every field away from its default, so a field the serializer forgot shows (operator== compares every field).
vlb::RunPlan unusual_plan() {
  vlb::RunPlan plan;
  plan.suite = "/data/suite with spaces.jsonl";
  plan.workloads_dir = "/opt/workloads";
  plan.solutions = {"template", "reference"};
  plan.case_selectors = {"3", "2x37x196", "d48e8b5b"};
  plan.custom_case_atol = 0.0125;
  plan.shards = {{1, 4}, {0, 2}};
  plan.seed = 0xfedcba9876543210ull;
  plan.correctness.rounds = 7;
  plan.correctness.forced_positions = vlb::PositionPattern::kRandom;
  plan.correctness.max_abs_error_cap = 0.25;
  plan.time_cases = false;
  plan.timing.warmup_iterations = 3;
  plan.timing.timed_iterations = 11;
  plan.timing.adaptive = vlb::AdaptiveStop{25, 0.75, 0.002, 12.5, 777};
  plan.timing.timer = vlb::TimerKind::kCupti;
  plan.timing.flush_l2 = false;
  plan.device = 3;
  plan.devices = vlb::DeviceList{false, {2, 0}};
  plan.gpu_spec_key = "H200_measured";
  plan.baseline_path = "/tmp/baseline.json";
  plan.json_path = "/tmp/out.json";
  plan.dump_dir = "/tmp/dumps";
  plan.isolation = false;
  plan.case_timeout_s = 42.5;
  plan.argv = {"vlbench", "--seed", "1"};
  return plan;
}

vlb::RunRecord worker_header() {
  vlb::RunRecord header;
  header.harness_version = "test";
  header.git_commit = "0123456";
  header.argv = {"vlbench", "--worker", "/tmp/x"};
  header.timestamp = "2026-12-01T00:00:00Z";
  header.settings.suite = "all";
  header.settings.solutions = {"template"};
  header.settings.seed = 9;
  header.settings.correctness_rounds = 2;
  return header;
}

vlb::SolutionRun provisional_run() {
  vlb::SolutionRun run;
  vlb::CaseResult& result = run.result;
  result.solution = "template";
  result.case_index = 15;
  result.uuid = "f36740f8-c877-5855-af92-5f7fd3522d9b";
  result.shape = {2, 128, 196};
  result.tolerance.atol = 0.0088;
  result.work = vlb::count_work(result.shape);
  result.status = vlb::CaseStatus::kPassed;
  for (std::uint64_t seed : {9u, 10u}) {
    vlb::CorrectnessRound round;
    round.seed = seed;
    round.positions = seed == 10u ? "random" : "official";
    result.correctness.push_back(round);
  }
  vlb::TimingResult timing;
  timing.samples_ms = timing.event_samples_ms = {0.5, 0.25, 0.75};
  timing.stats = vlb::compute_statistics(timing.samples_ms);
  timing.stop_reason = "iterations";
  result.timing = timing;
  for (int call : {0, 1, 17, 20}) {
    vlb::CapturedOutput captured{call, std::vector<std::byte>(1000 + call)};
    for (std::size_t i = 0; i < captured.bytes.size(); ++i) captured.bytes[i] = std::byte(i * 7 + call);
    run.captured.push_back(std::move(captured));
  }
  return run;
}

}  // namespace

TEST_CASE("a plan survives JSON whole, field by field", "[runner][worker]") {
  const vlb::RunPlan plan = unusual_plan();
  REQUIRE_FALSE(plan == vlb::RunPlan{});
  CHECK(vlb::plan_from_json(vlb::plan_to_json(plan)) == plan);
  CHECK(vlb::plan_from_json(vlb::plan_to_json(vlb::RunPlan{})) == vlb::RunPlan{});
  CHECK_THROWS_AS(vlb::plan_from_json(nlohmann::json{{"suite", 3}}), vlb::SystemError);
}

TEST_CASE("a worker's task goes through its folder", "[runner][worker]") {
  const vlb::testing::ScratchFolder folder;
  vlb::write_worker_task(folder.path(), {unusual_plan(), "template", 5});
  const vlb::WorkerTask task = vlb::read_worker_task(folder.path());
  CHECK(task.plan == unusual_plan());
  CHECK(task.solution == "template");
  CHECK(task.case_position == 5);
  CHECK_THROWS_AS(vlb::read_worker_task(folder.path() / "missing"), vlb::SystemError);
}

TEST_CASE("a worker's result and outputs come back byte for byte", "[runner][worker]") {
  const vlb::testing::ScratchFolder folder;
  CHECK_FALSE(vlb::read_worker_outcome(folder.path()).has_value());  // a worker that died before writing
  const vlb::SolutionRun written = provisional_run();
  vlb::write_worker_outcome(folder.path(), written, worker_header());
  const auto read = vlb::read_worker_outcome(folder.path());
  REQUIRE(read.has_value());
  CHECK(read->result.solution == "template");
  CHECK(read->result.status == vlb::CaseStatus::kPassed);
  REQUIRE(read->result.correctness.size() == 2);
  CHECK(read->result.correctness[1].positions == "random");
  REQUIRE(read->result.timing.has_value());
  CHECK(read->result.timing->samples_ms == written.result.timing->samples_ms);
  REQUIRE(read->captured.size() == written.captured.size());
  for (std::size_t i = 0; i < written.captured.size(); ++i) {
    CHECK(read->captured[i].call == written.captured[i].call);
    CHECK(read->captured[i].bytes == written.captured[i].bytes);
  }
}

TEST_CASE("an output file cut short is an error, not a wrong answer", "[runner][worker]") {
  const vlb::testing::ScratchFolder folder;
  vlb::write_worker_outcome(folder.path(), provisional_run(), worker_header());
  std::ofstream(folder.path() / "output_17.bin", std::ios::binary | std::ios::trunc) << "short";
  CHECK_THROWS_AS(vlb::read_worker_outcome(folder.path()), vlb::SystemError);
}
