// The pipeline end to end on real cases: inputs -> solution -> check -> time -> SOL, with the results file.
#include <catch2/catch.hpp>

#include <filesystem>

#include "harness/report/results_json.hpp"
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

TEST_CASE("the template and the reference pass, are timed and get SOL figures", "[runner][gpu]") {
  // In-process here (the test binary cannot serve as a worker); tests/robustness runs the isolated mode.
  vlb::RunPlan plan = small_plan({"template", "reference"});
  const vlb::testing::ScratchFolder scratch;
  const auto json = scratch.file("pipeline.json");
  plan.json_path = json;
  const vlb::RunOutput output = vlb::execute_plan(plan, nullptr);
  CHECK_FALSE(output.any_failure);
  REQUIRE(output.record.cases.size() == 4);
  for (const auto& result : output.record.cases) {
    INFO(result.solution << " " << result.case_index << ": " << result.reason);
    CHECK(result.status == vlb::CaseStatus::kPassed);
    // Two seeded rounds (the second with random positions), then three sampled timed calls and the last one (three
    // entries when the last was among the sampled), each judged against the reference for its own seed.
    REQUIRE(result.correctness.size() >= 5);
    REQUIRE(result.correctness.size() <= 6);
    CHECK(result.correctness[0].seed == 1234);
    CHECK(result.correctness[1].seed == 1235);
    CHECK(result.correctness[1].positions == "random");
    const std::uint64_t first_timed_seed = 1234 + 2 + 2;  // after the rounds and the warm-up calls
    for (std::size_t i = 2; i < result.correctness.size(); ++i) {
      CHECK(result.correctness[i].status == vlb::CaseStatus::kPassed);
      CHECK(result.correctness[i].positions == "official");
      CHECK(result.correctness[i].seed >= first_timed_seed);
      if (i > 2) CHECK(result.correctness[i].seed > result.correctness[i - 1].seed);
    }
    CHECK(result.correctness.back().seed == first_timed_seed + 6);  // the last of the 7 timed calls
    REQUIRE(result.timing.has_value());
    CHECK(result.timing->samples_ms.size() == 7);
    CHECK(result.timing->stats.median > 0);
    REQUIRE(result.sol.has_value());
    CHECK(result.sol->t_sol_ms > 0);
    CHECK_FALSE(result.implausibly_fast);
  }
  const vlb::RunRecord reread = vlb::read_results_file(json);
  CHECK(reread.cases.size() == 4);
  CHECK(reread.environment.sm_count > 0);
  CHECK_FALSE(std::filesystem::exists(json.string() + ".partial.jsonl"));
}

TEST_CASE("a check-only run judges only the rounds", "[runner][gpu]") {
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
