// The pipeline end to end on real cases: inputs -> solution -> check -> time -> SOL, with the results file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "harness/report/results_json.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/judge/suite_runner.hpp"
#include "harness/suite/suite.hpp"
#include "support/scratch_folder.hpp"

namespace {
vlb::RunPlan small_plan(const std::vector<std::string>& solutions) {
  vlb::RunPlan plan;
  plan.workloads_dir = vlb::default_workloads_dir();
  plan.solutions = solutions;
  plan.case_selectors = {"15", "2x37x196"};  // an official case and a ragged custom one
  plan.seed = 1234;
  plan.correctness.rounds = 2;
  plan.timing.warmup_iterations = 2;
  plan.timing.timed_iterations = 7;
  plan.isolation = false;
  plan.argv = {"vlbench", "(pipeline test)"};
  return plan;
}
}  // namespace

// Both hosts: a sandboxed worker process per case (the default), and this process (--no-isolation).
TEST_CASE("the template and the reference pass, are timed, every timed call judged, and get SOL figures",
          "[judge][gpu]") {
  const bool isolation = GENERATE(true, false);
  INFO("isolation " << isolation);
  vlb::RunPlan plan = small_plan({"template", "reference"});
  plan.isolation = isolation;
  const vlb::testing::ScratchFolder scratch;
  const auto json = scratch.file("pipeline.json");
  plan.json_path = json;
  const vlb::RunOutput output = vlb::execute_plan(plan, nullptr);
  CHECK_FALSE(output.any_failure);
  REQUIRE(output.record.cases.size() == 4);
  std::set<std::uint64_t> timed_seeds;
  for (const auto& result : output.record.cases) {
    INFO(result.solution << " " << result.case_index << ": " << result.reason);
    CHECK(result.status == vlb::CaseStatus::kPassed);
    // Two seeded rounds (the second with random positions): --seed, then the seed keyed by (--seed, 1).
    REQUIRE(result.correctness.size() == 2);
    CHECK(result.correctness[0].seed == 1234);
    CHECK(result.correctness[1].seed == vlb::round_seed(1234, 1));
    CHECK(result.correctness[1].positions == "random");
    REQUIRE(result.timing.has_value());
    const vlb::TimingResult& timing = *result.timing;
    CHECK(timing.samples_ms.size() == 7);
    CHECK(timing.stats.median > 0);
    // Every timed call judged against the reference for its own inputs, each with a seed from entropy.
    REQUIRE(timing.judged_calls.size() == 7);
    for (const vlb::TimedCallCheck& check : timing.judged_calls) {
      CHECK(check.matched_ratio >= 0.99);
      CHECK(timed_seeds.insert(check.seed).second);
    }
    // The judge's own clock of each call, never below the worker's.
    REQUIRE(timing.outside_samples_ms.size() == 7);
    for (std::size_t i = 0; i < 7; ++i) CHECK(timing.outside_samples_ms[i] >= timing.event_samples_ms[i]);
    CHECK(timing.outside_clock.has_value() == isolation);
    REQUIRE(result.sol.has_value());
    CHECK(result.sol->t_sol_ms > 0);
    CHECK_FALSE(result.implausibly_fast);
  }
  const vlb::RunRecord reread = vlb::read_results_file(json);
  CHECK(reread.cases.size() == 4);
  CHECK(reread.environment.sm_count > 0);
  CHECK_THAT(reread.environment.sandbox, Catch::Contains(isolation ? "landlock" : "none"));
  CHECK_FALSE(std::filesystem::exists(json.string() + ".partial.jsonl"));
}

TEST_CASE("a check-only run judges only the rounds", "[judge][gpu]") {
  vlb::RunPlan plan = small_plan({"template"});
  plan.time_cases = false;
  plan.correctness.rounds = 3;
  const vlb::RunOutput output = vlb::execute_plan(plan, nullptr);
  REQUIRE(output.record.cases.size() == 2);
  for (const auto& result : output.record.cases) {
    INFO(result.case_index << ": " << result.reason);
    CHECK(result.status == vlb::CaseStatus::kPassed);
    CHECK(result.correctness.size() == 3);
    CHECK(result.correctness[2].positions == "random");
    CHECK_FALSE(result.timing.has_value());
  }
}
