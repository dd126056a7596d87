// `vlbench show`: a results file's cases, kernel by kernel; a selection that matches nothing is exit 2.
#include <catch2/catch.hpp>

#include "harness/report/results_json.hpp"
#include "harness/timing/statistics.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

vlb::CaseResult timed_case(int index, const std::string& solution) {
  vlb::CaseResult result;
  result.solution = solution;
  result.case_index = index;
  result.uuid = "f36740f8-c877-5855-af92-5f7fd3522d9b";
  result.shape = {2, 128, 196};
  result.tolerance = {0.0088, 0.05, 0.99};
  result.status = vlb::CaseStatus::kPassed;
  vlb::TimingResult timing;
  timing.samples_ms = timing.event_samples_ms = {0.0721, 0.0718, 0.0725};
  timing.stats = vlb::compute_statistics(timing.samples_ms);
  timing.stop_reason = "iterations";
  timing.cupti_available = true;
  vlb::KernelBreakdown breakdown;
  breakdown.calls = 3;
  breakdown.span_ms = 0.070;
  breakdown.kernels = {{"projection_kernel<…>", {132, 1, 1}, {384, 1, 1}, 0.030, 0.4286},
                       {"attention_kernel<Config<128, 128> >", {64, 1, 1}, {384, 1, 1}, 0.035, 0.5}};
  breakdown.gaps_ms = {0.005};
  breakdown.gaps_total_ms = 0.005;
  timing.breakdown = breakdown;
  result.timing = timing;
  return result;
}

}  // namespace

TEST_CASE("vlbench show prints each selected case's kernels, their shares and the gaps", "[cli][show]") {
  const vlb::testing::ScratchFolder folder;
  vlb::RunRecord run;
  run.harness_version = "0.1.0";
  run.environment.gpu_name = "NVIDIA H200";
  run.cases = {timed_case(15, "fused_b200"), timed_case(8, "template")};
  run.cases[1].timing->breakdown.reset();
  run.summary = vlb::summarize(run.cases, 1.0);
  const auto file = folder.write("run.json", vlb::to_json(run).dump());

  const auto shown = vlb::testing::run_vlbench({"show", file.string(), "-c", "15"});
  INFO(shown.output);
  REQUIRE(shown.exit_code == 0);
  CHECK_THAT(shown.output, Catch::Contains("fused_b200 #15"));
  CHECK_THAT(shown.output, Catch::Contains("attention_kernel<Config<128, 128> >") && Catch::Contains("132x1x1"));
  CHECK_THAT(shown.output, Catch::Contains("50.0%") && Catch::Contains("gap to the next"));
  CHECK_THAT(shown.output, Catch::Contains("gaps in all: 5.0 us"));
  CHECK_THAT(shown.output, !Catch::Contains("template"));

  const auto all = vlb::testing::run_vlbench({"show", file.string()});
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.output, Catch::Contains("no kernel breakdown"));
  const auto none = vlb::testing::run_vlbench({"show", file.string(), "-s", "reference"});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.output, Catch::Contains("holds no case of the selection"));
}
