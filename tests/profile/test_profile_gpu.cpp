// Seeing why on a real GPU: fused_b200's per-kernel breakdown adds up to its span, and `vlbench profile` writes an
// Nsight Compute report that ncu itself reads back, for template and for fused_b200.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "harness/profile/profile.hpp"
#include "harness/report/results_json.hpp"
#include "harness/timing/statistics.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"
#include "support/skip.hpp"

namespace {

// A kernel's median and the median gaps are medians of different calls, so they add up to the median span only
// approximately: within 3% of it (and 3 us, the CUPTI records' own jitter on the smallest case).
constexpr double kSumTolerance = 0.03;
constexpr double kSumToleranceMs = 0.003;

void check_breakdown_adds_up(const vlb::CaseResult& result) {
  INFO("case " << result.case_index << ": " << result.reason);
  REQUIRE(result.status == vlb::CaseStatus::kPassed);
  REQUIRE(result.timing.has_value());
  REQUIRE(result.timing->breakdown.has_value());
  const vlb::KernelBreakdown& breakdown = *result.timing->breakdown;
  CHECK(breakdown.calls == static_cast<int>(result.timing->samples_ms.size()));
  REQUIRE(breakdown.kernels.size() >= 2);  // fused_b200 is a few kernels, never one
  REQUIRE(breakdown.gaps_ms.size() == breakdown.kernels.size() - 1);
  double kernels_ms = 0;
  for (const vlb::KernelShare& kernel : breakdown.kernels) {
    INFO(kernel.name);
    CHECK_FALSE(kernel.name.empty());
    CHECK(kernel.name.find("_Z") != 0);  // demangled
    REQUIRE(kernel.grid.size() == 3);
    CHECK(kernel.grid[0] * kernel.grid[1] * kernel.grid[2] > 0);
    CHECK(kernel.median_ms > 0);
    CHECK(kernel.share == Approx(kernel.median_ms / breakdown.span_ms).epsilon(1e-9));
    kernels_ms += kernel.median_ms;
  }
  CHECK(breakdown.gaps_total_ms == Approx(std::accumulate(breakdown.gaps_ms.begin(), breakdown.gaps_ms.end(), 0.0)));
  const double cupti_median = vlb::compute_statistics(result.timing->cupti_samples_ms).median;
  CHECK(breakdown.span_ms == Approx(cupti_median).epsilon(1e-9));
  INFO("kernels " << kernels_ms << " ms + gaps " << breakdown.gaps_total_ms << " ms, span " << breakdown.span_ms);
  CHECK(std::abs(kernels_ms + breakdown.gaps_total_ms - breakdown.span_ms) <=
        kSumTolerance * breakdown.span_ms + kSumToleranceMs);
}

// `vlbench profile` on one case; the report's path, or empty (and the test marked skipped) where ncu cannot profile.
std::filesystem::path profile_case(const vlb::testing::ScratchFolder& folder, const std::string& solution,
                                   const std::string& case_index) {
  const auto output = folder.file(solution + "_" + case_index);
  const auto run = vlb::testing::run_vlbench({"profile", "-s", solution, "-c", case_index, "--tool", "ncu", "-o",
                                              output.string()});
  INFO(run.output);
  if (run.output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    vlb::testing::mark_skipped("ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM)");
    return {};
  }
  REQUIRE(run.exit_code == 0);
  const std::filesystem::path report = output.string() + ".ncu-rep";
  CHECK_THAT(run.output, Catch::Contains("report: " + report.string()));
  CHECK_THAT(run.output, Catch::Contains("duration us"));
  CHECK_THAT(run.output, !Catch::Contains("the report holds no kernel"));
  REQUIRE(std::filesystem::is_regular_file(report));
  return report;
}

}  // namespace

TEST_CASE("fused_b200's breakdown on two cases adds up to its span", "[profile][breakdown]") {
  const vlb::testing::ScratchFolder folder;
  const auto json = folder.file("fused.json");
  const auto run = vlb::testing::run_vlbench({"-s", "fused_b200", "-c", "15", "-c", "10", "--rounds", "1",
                                              "--warmup", "3", "--iterations", "30", "--json", json.string()});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const vlb::RunRecord record = vlb::read_results_file(json);
  REQUIRE(record.cases.size() == 2);
  for (const vlb::CaseResult& result : record.cases) {
    if (result.status == vlb::CaseStatus::kSkipped) VLB_SKIP("fused_b200 does not run on this GPU: " + result.reason);
    REQUIRE(result.timing.has_value());
    if (!result.timing->cupti_available) VLB_SKIP("CUPTI cannot trace on this machine: no breakdown to check");
    check_breakdown_adds_up(result);
  }
}

TEST_CASE("vlbench profile writes a report that ncu reads back", "[profile][ncu]") {
  std::filesystem::path ncu;
  try {
    ncu = vlb::find_profiler(vlb::ProfilerTool::kNcu, vlb::profiler_search_path());
  } catch (const std::exception& error) {
    VLB_SKIP(std::string("no Nsight Compute here: ") + error.what());
  }
  const vlb::testing::ScratchFolder folder;
  for (const auto& [solution, case_index, kernel] : {std::tuple{"template", "15", ""},
                                                     std::tuple{"fused_b200", "10", "attention"}}) {
    INFO(solution);
    const std::filesystem::path report = profile_case(folder, solution, case_index);
    if (report.empty()) return;
    const auto summary = vlb::testing::run_process(ncu, {"--import", report.string(), "--print-summary", "per-kernel"});
    INFO(summary.output);
    REQUIRE(summary.exit_code == 0);
    CHECK_THAT(summary.output, Catch::Contains("Duration") || Catch::Contains("duration"));
    CHECK_THAT(summary.output, Catch::Contains(kernel));
  }
}
