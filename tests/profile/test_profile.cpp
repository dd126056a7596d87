// `vlbench profile` without a GPU: the profiler's command line (clocks untouched, one NVTX range captured), the
// summary read from Nsight Compute's table, a missing tool named; and the whole command against a stand-in ncu that
// records how it was called and answers --import with a table.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "harness/core/errors.hpp"
#include "harness/profile/profile.hpp"
#include "support/process.hpp"
#include "support/scratch_folder.hpp"

namespace {

constexpr const char* kNcuTable =
    "==PROF== Connected to process 4242\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"gpu__time_duration.sum\","
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\"\n"
    "\"\",\"\",\"\",\"\",\"usecond\",\"%\",\"%\",\"%\"\n"
    "\"0\",\"4242\",\"void vlb::fused_b200::sm90::attention_kernel<vlb::fused_b200::Config<128, 128>>"
    "(vlb::fused_b200::Params)\","
    "\"(384, 1, 1)\",\"1,234.5\",\"81.2\",\"40.5\",\"12.4\"\n"
    "\"1\",\"4242\",\"nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT\",\"(384, 1, 1)\",\"88.25\",\"70\",\"55.5\",\"11.9\"\n";

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

TEST_CASE("ncu's raw table reads as a row per kernel, in microseconds", "[profile]") {
  const auto kernels = vlb::parse_ncu_raw_csv(kNcuTable);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].duration_us == Approx(1234.5));
  CHECK(kernels[0].sm_throughput_pct == Approx(81.2));
  CHECK(kernels[0].memory_throughput_pct == Approx(40.5));
  CHECK(kernels[0].achieved_occupancy_pct == Approx(12.4));
  CHECK(kernels[1].name == "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_TNT");
  std::string in_ns = kNcuTable;
  in_ns.replace(in_ns.find("usecond"), 7, "nsecond");
  CHECK(vlb::parse_ncu_raw_csv(in_ns)[1].duration_us == Approx(0.08825));
  CHECK_THROWS_AS(vlb::parse_ncu_raw_csv("\"ID\",\"Kernel Name\"\n\"\",\"\"\n"), vlb::InputError);
  CHECK_THROWS_AS(vlb::parse_ncu_raw_csv("nothing"), vlb::InputError);
}

TEST_CASE("the profiler's command: clocks untouched, the timed call's range, the run in this process", "[profile]") {
  vlb::ProfileRequest request;
  request.solution = "fused_b200";
  request.case_selector = "10";
  request.output = "profiles/case10";
  const auto ncu = vlb::profiler_command(request, "/b/vlbench");
  CHECK(ncu.front() == "ncu");
  for (const char* expected : {"--clock-control", "none", "--nvtx", "--nvtx-include", "vlbench: timed call/",
                               "--export", "profiles/case10", "/b/vlbench", "--no-isolation", "--nvtx-ranges"}) {
    INFO(expected);
    CHECK(contains(ncu, expected));
  }
  request.tool = vlb::ProfilerTool::kNsys;
  request.case_selector = "2x37x196";
  const auto nsys = vlb::profiler_command(request, "/b/vlbench");
  CHECK(contains(nsys, "--capture-range"));
  CHECK(contains(nsys, "vlbench: timed call"));
  CHECK(contains(nsys, "--shape"));  // a size is a --shape, not a -c
}

TEST_CASE("a missing profiler is an error that names it", "[profile]") {
  const vlb::testing::ScratchFolder empty;
  CHECK_THROWS_WITH(vlb::find_profiler(vlb::ProfilerTool::kNcu, {empty.path()}),
                    Catch::Contains("ncu (Nsight Compute) is not on PATH"));
  CHECK_THROWS_WITH(vlb::find_profiler(vlb::ProfilerTool::kNsys, {empty.path()}),
                    Catch::Contains("nsys (Nsight Systems) is not on PATH"));
  CHECK_THROWS_AS(vlb::find_profiler(vlb::ProfilerTool::kNcu, {empty.path()}), vlb::SystemError);
}

TEST_CASE("vlbench profile runs the tool as documented and prints the report's first numbers", "[profile]") {
  const vlb::testing::ScratchFolder folder;
  const auto tools = folder.path() / "tools";
  std::filesystem::create_directory(tools);
  const auto table = folder.write("table.csv", kNcuTable);
  const auto arguments = folder.file("ncu.args");
  // The stand-in: records its arguments and writes the report; answers --import with the table.
  const std::string script =
      "#!/bin/sh\n"
      "if [ \"$1\" = --import ]; then cat '" + table.string() + "'; exit 0; fi\n"
      "printf '%s\\n' \"$@\" > '" + arguments.string() + "'\n"
      "while [ $# -gt 0 ]; do if [ \"$1\" = --export ]; then touch \"$2.ncu-rep\"; fi; shift; done\n";
  folder.write("tools/ncu", script);
  chmod((tools / "ncu").c_str(), 0755);
  const std::string path = "PATH=" + tools.string() + ":" + std::getenv("PATH");
  const auto report = folder.file("out/template_15");
  const auto run = vlb::testing::run_process(vlb::testing::vlbench_binary(),
                                             {"profile", "-s", "template", "-c", "15", "--tool", "ncu", "-o",
                                              report.string()},
                                             {path});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("report: " + report.string() + ".ncu-rep"));
  CHECK_THAT(run.output, Catch::Contains("attention_kernel<Config<128, 128>>") && Catch::Contains("1234.5"));
  const std::string called = vlb::testing::read_text(arguments);
  for (const char* expected : {"--clock-control\nnone\n", "--nvtx-include\nvlbench: timed call/\n", "--solution\ntemplate\n",
                               "--case\n15\n", "--iterations\n1\n", "--no-isolation\n", "--nvtx-ranges\n"}) {
    INFO(expected);
    CHECK_THAT(called, Catch::Contains(expected));
  }
  // A bad solution is refused before any tool runs (exit 2).
  const auto bad = vlb::testing::run_process(vlb::testing::vlbench_binary(),
                                             {"profile", "-s", "no_such", "-c", "15", "-o", report.string()}, {path});
  CHECK(bad.exit_code == 2);
}
