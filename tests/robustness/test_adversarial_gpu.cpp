// Every adversarial solution (adversarial_solutions.cu) gets the status it must get, each in its own sandboxed worker
// process, and the run goes on past crashes, hangs and refused system calls with every finished result kept; the ones
// that throw are contained in the trusted in-process mode too; the honest template passes both ways.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include "harness/report/results_json.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

using S = vlb::CaseStatus;

struct Expectation {
  const char* solution;
  std::vector<S> accepted;    // more than one where the outcome depends on a race the harness may win
  const char* reason_part;    // a part of the reason that names the finding ("" to skip)
};

std::string joined_names(const std::vector<Expectation>& expectations) {
  std::string names;
  for (const auto& e : expectations) names += (names.empty() ? "" : ",") + std::string(e.solution);
  return names;
}

vlb::RunRecord run_adversaries(const std::vector<Expectation>& expectations, const std::vector<std::string>& extra) {
  const vlb::testing::ScratchFolder scratch;
  const auto results = scratch.file("adversarial.json");
  std::vector<std::string> arguments = {"--solution", joined_names(expectations), "--case", "15", "--rounds", "2",
                                        "--warmup", "2", "--iterations", "5", "--json", results.string()};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  // A hung worker is killed at the case's limit; in-process there is no worker (and nothing here hangs).
  const bool in_process = std::find(extra.begin(), extra.end(), "--no-isolation") != extra.end();
  if (!in_process) arguments.insert(arguments.end(), {"--case-timeout", "20"});
  const auto run = vlb::testing::run_process(
      vlb::testing::vlbench_binary(), arguments,
      {vlb::testing::solution_modules_entry({vlb::testing::test_module("adversaries")})});
  INFO(run.output);
  CHECK(run.exit_code == 1);  // some cases failed, none stopped the run
  return vlb::read_results_file(results);
}

void check_statuses(const vlb::RunRecord& record, const std::vector<Expectation>& expectations) {
  REQUIRE(record.cases.size() == expectations.size());
  const bool cupti = std::any_of(record.cases.begin(), record.cases.end(),
                                 [](const auto& c) { return c.timing && c.timing->cupti_available; });
  for (std::size_t i = 0; i < expectations.size(); ++i) {
    const auto& result = record.cases[i];
    const auto& expected = expectations[i];
    INFO(expected.solution << ": " << vlb::status_name(result.status) << " - " << result.reason);
    REQUIRE(result.solution == expected.solution);
    auto accepted = expected.accepted;
    if (std::string(expected.solution) == "adversarial_changes_kernels" && !cupti) accepted = {S::kPassed};
    CHECK(std::find(accepted.begin(), accepted.end(), result.status) != accepted.end());
    if (result.status != S::kPassed) {
      CHECK_FALSE(result.reason.empty());
      // A failed case never carries a leaderboard figure, even where its timing is kept as evidence.
      CHECK_FALSE(result.score.has_value());
      CHECK_FALSE(result.sol_fraction.has_value());
    }
    CHECK_THAT(result.reason, Catch::Contains(expected.reason_part));
  }
}

const vlb::CaseResult& result_of(const vlb::RunRecord& record, const std::string& solution) {
  const auto found = std::find_if(record.cases.begin(), record.cases.end(),
                                  [&](const auto& c) { return c.solution == solution; });
  REQUIRE(found != record.cases.end());
  return *found;
}

// A cache that never hits costs what the honest computation costs: its median is the template's, not a replay's.
void check_no_replay(const vlb::RunRecord& record, const std::string& cacher) {
  const auto& honest = result_of(record, "template");
  const auto& cached = result_of(record, cacher);
  REQUIRE(honest.timing.has_value());
  REQUIRE(cached.timing.has_value());
  INFO(cacher << " median " << cached.timing->stats.median << " ms, template " << honest.timing->stats.median << " ms");
  CHECK(cached.timing->stats.median >= 0.5 * honest.timing->stats.median);
}

}  // namespace

TEST_CASE("adversarial solutions are caught, each with the right status", "[robustness][gpu]") {
  const std::vector<Expectation> expectations = {
      {"adversarial_writes_nothing", {S::kIncorrectNumerical}, "NaN"},
      {"adversarial_writes_nan", {S::kIncorrectNumerical}, ""},
      {"adversarial_writes_half", {S::kIncorrectNumerical}, ""},
      {"adversarial_slightly_wrong", {S::kIncorrectNumerical}, ""},
      {"adversarial_modifies_input", {S::kRewardHack}, "q_proj_bias"},
      {"adversarial_unjoined_stream", {S::kIncorrectNumerical, S::kRewardHack}, ""},
      {"adversarial_default_stream", {S::kIncorrectNumerical, S::kRewardHack}, ""},
      {"adversarial_replays_by_pointer", {S::kPassed}, ""},  // every call at a new address: it never replays
      {"adversarial_hangs", {S::kTimeout}, ""},
      {"adversarial_crashes_device", {S::kRuntimeError}, ""},
      {"adversarial_crashes_host", {S::kRuntimeError}, ""},
      {"adversarial_allocates", {S::kRewardHack}, ""},
      {"adversarial_changes_kernels", {S::kRewardHack}, ""},  // needs CUPTI: see check_statuses
      {"adversarial_caches_by_content", {S::kPassed}, ""},   // every call's values are new: it never replays
      {"adversarial_stashes_in_workspace", {S::kIncorrectNumerical}, "round 1"},
      {"adversarial_reads_neighbour", {S::kIncorrectNumerical}, "round 0"},
      {"adversarial_replays_last_output", {S::kIncorrectNumerical}, "timed call"},
      {"adversarial_faster_than_physics", {S::kRewardHack}, "physical floor"},
      {"adversarial_writes_past_output", {S::kRewardHack}, "guard zone after output"},
      {"adversarial_writes_before_input", {S::kRewardHack}, "guard zone before q_proj_bias"},
      {"adversarial_throws_in_constructor", {S::kRuntimeError}, "constructor threw: cannot load my kernels"},
      {"adversarial_throws_in_unsupported_reason", {S::kRuntimeError}, "unsupported_reason threw: device query"},
      {"adversarial_throws_in_workspace_bytes", {S::kRuntimeError}, "workspace_bytes threw: shape too large"},
      {"adversarial_throws_in_run", {S::kRuntimeError}, "run threw something that is not a std::exception"},
      {"template", {S::kPassed}, ""},  // the honest control
  };
  const vlb::RunRecord record = run_adversaries(expectations, {});
  check_statuses(record, expectations);
  check_no_replay(record, "adversarial_caches_by_content");
  check_no_replay(record, "adversarial_replays_by_pointer");
}

// The cheats of the integrity issue (#23), each of a class the judge must hold against, and the sandbox's refusals.
TEST_CASE("calls cannot be predicted, every timed call is judged, the judge keeps its own clock, stray writes fault",
          "[robustness][gpu]") {
  const std::vector<Expectation> expectations = {
      {"adversarial_predicts_inputs", {S::kIncorrectNumerical}, "timed call"},
      {"adversarial_forges_times", {S::kRewardHack}, ""},  // which finding comes first: see below
      {"adversarial_skips_random_calls", {S::kIncorrectNumerical}, "timed call"},
      {"adversarial_skips_one_call", {S::kIncorrectNumerical}, "timed call"},
      {"adversarial_writes_far_past_output", {S::kRuntimeError}, "illegal memory access"},
      {"adversarial_reports_done_early", {S::kIncorrectNumerical}, "timed call"},
      {"adversarial_sends_extra_message", {S::kRewardHack}, "broke the judge's protocol"},
      {"adversarial_traces_parent", {S::kRuntimeError}, "sandbox refused the solution's ptrace system call"},
      {"adversarial_writes_parent_memory", {S::kRuntimeError}, "refused the solution's process_vm_writev"},
      {"adversarial_opens_parent_proc", {S::kRuntimeError}, "Permission denied"},
      {"adversarial_writes_outside_scratch", {S::kRuntimeError}, "Permission denied"},
      {"adversarial_opens_socket", {S::kRuntimeError}, "refused the solution's socket system call"},
      {"adversarial_signals_parent", {S::kRuntimeError}, "Operation not permitted"},
      {"template", {S::kPassed}, ""},
  };
  const vlb::RunRecord record = run_adversaries(expectations, {});
  check_statuses(record, expectations);
  // The forged times: the judge's own clock names them, whatever else (the CUPTI audit) found them first.
  const auto& forged = result_of(record, "adversarial_forges_times");
  REQUIRE(forged.timing.has_value());
  const auto& violations = forged.timing->violations;
  CHECK(std::any_of(violations.begin(), violations.end(),
                    [](const std::string& v) { return v.find("the judge's own clock") != std::string::npos; }));
  // The skipped calls were each judged: the first wrong one is named with its seed.
  CHECK_THAT(result_of(record, "adversarial_skips_one_call").reason, Catch::Contains("(seed "));
  // The honest control's every timed call was judged, and the sandbox recorded in the environment.
  const auto& honest = result_of(record, "template");
  REQUIRE(honest.timing.has_value());
  CHECK(honest.timing->judged_calls.size() == 5);
  CHECK_THAT(record.environment.sandbox, Catch::Contains("landlock") && Catch::Contains("seccomp"));
}

TEST_CASE("in the trusted in-process mode, solution errors are contained per case too", "[robustness][gpu]") {
  const std::vector<Expectation> expectations = {
      {"adversarial_throws_in_constructor", {S::kRuntimeError}, "constructor threw"},
      {"adversarial_throws_in_unsupported_reason", {S::kRuntimeError}, "unsupported_reason threw"},
      {"adversarial_throws_in_workspace_bytes", {S::kRuntimeError}, "workspace_bytes threw"},
      {"adversarial_throws_in_run", {S::kRuntimeError}, "run threw"},
      {"adversarial_stashes_in_workspace", {S::kIncorrectNumerical}, "round 1"},
      {"adversarial_writes_past_output", {S::kRewardHack}, "guard zone after output"},
      {"adversarial_faster_than_physics", {S::kRewardHack}, "physical floor"},
      {"adversarial_caches_by_content", {S::kPassed}, ""},
      {"template", {S::kPassed}, ""},
  };
  const vlb::RunRecord record = run_adversaries(expectations, {"--no-isolation"});
  CHECK_FALSE(record.settings.isolation);
  check_statuses(record, expectations);
  check_no_replay(record, "adversarial_caches_by_content");
}
