// `vlbench merge`: results of separate runs into one, in run order with the summary recomputed; runs whose results
// do not compare are refused unless forced.
#include <catch2/catch.hpp>

#include <functional>

#include "harness/core/errors.hpp"
#include "harness/report/results_json.hpp"
#include "harness/report/results_merge.hpp"
#include "report/support_results.hpp"

namespace vlb {
namespace {

// A seeded run cut in two, as two hosts (or two shards) would have reported it.
struct TwoHalves {
  RunRecord whole, first, second;
};

TwoHalves split_run(std::uint64_t seed) {
  TwoHalves halves{test::make_seeded_run(seed), {}, {}};
  // Cases: flash_sm90 #0 #1 #2, naive #3, a custom case, #5.
  halves.first = halves.second = halves.whole;
  halves.first.cases = {halves.whole.cases[0], halves.whole.cases[3], halves.whole.cases[4]};
  halves.second.cases = {halves.whole.cases[1], halves.whole.cases[2], halves.whole.cases[5]};
  halves.first.summary = summarize(halves.first.cases, 10.0);
  halves.second.summary = summarize(halves.second.cases, 20.0);
  halves.first.git_dirty = false;
  halves.second.environment.hostname = "bench-node-8";
  halves.second.environment.gpu_uuid = "GPU-00000000-1111-2222-3333-444444444444";
  halves.second.timestamp = "2026-11-29T15:29:00Z";  // started a minute earlier
  halves.first.settings.case_selectors = {"0", "3", "1x64x196"};
  halves.second.settings.case_selectors = {"1", "2", "3", "5"};
  return halves;
}

}  // namespace

TEST_CASE("two halves of a run merge into it: run order, recomputed summary, every host named", "[report][merge]") {
  const TwoHalves halves = split_run(31);
  const MergedRun merged = merge_runs({{"a.json", halves.first}, {"b.json", halves.second}}, false);
  CHECK(merged.overridden.empty());
  const RunRecord& record = merged.record;
  // Solutions in order; within one, suite cases by index, then custom cases.
  const std::vector<const CaseResult*> expected = {&halves.whole.cases[0], &halves.whole.cases[1],
                                                   &halves.whole.cases[2], &halves.whole.cases[3],
                                                   &halves.whole.cases[5], &halves.whole.cases[4]};
  REQUIRE(record.cases.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) test::require_same_case(*expected[i], record.cases[i]);
  REQUIRE(record.summary.has_value());
  test::require_same(summarize(record.cases, 30.0), *record.summary, "summary");
  CHECK(record.environment.hostname == "bench-node-7,bench-node-8");
  CHECK(record.environment.gpu_uuid == halves.first.environment.gpu_uuid + "," + halves.second.environment.gpu_uuid);
  CHECK(record.timestamp == "2026-11-29T15:29:00Z");  // the earliest start
  CHECK(record.git_dirty);                            // either build was dirty
  CHECK(record.argv.empty());                         // the caller records its own command
  CHECK(record.settings.solutions == std::vector<std::string>{"flash_sm90", "naive"});
  CHECK(record.settings.case_selectors == std::vector<std::string>{"0", "3", "1x64x196", "1", "2", "5"});
  // What is not merged is the first file's.
  CHECK(record.harness_version == halves.first.harness_version);
  test::require_same(halves.first.settings.timing, record.settings.timing, "settings.timing");
  // A valid results document.
  CHECK_NOTHROW(validate_results_json(to_json(record)));
  // One file merges into itself, with its summary recomputed.
  const MergedRun single = merge_runs({{"a.json", halves.whole}}, false);
  CHECK(single.record.cases.size() == 6);
  CHECK(single.record.summary->wall_time_s == halves.whole.summary->wall_time_s);
}

TEST_CASE("runs that do not compare are refused, naming what differs; --force merges them and says so",
          "[report][merge]") {
  struct Difference {
    const char* what;
    std::function<void(RunRecord&)> change;
  };
  const std::vector<Difference> differences = {
      {"suite", [](RunRecord& r) { r.settings.suite = "sweep"; }},
      {"harness", [](RunRecord& r) { r.harness_version = "0.2.0"; }},
      {"harness", [](RunRecord& r) { r.git_commit = "ffffffffffff"; }},
      {"GPU model", [](RunRecord& r) { r.environment.gpu_name = "NVIDIA H100 80GB HBM3"; }},
      {"GPU model", [](RunRecord& r) { r.environment.compute_capability = 100; }},
      {"speed-of-light spec", [](RunRecord& r) { r.environment.gpu_spec_key = "H200_measured"; }},
      {"baseline", [](RunRecord& r) { r.settings.baseline_source = "published B200"; }},
      {"timing settings", [](RunRecord& r) { r.settings.timing.timed_iterations = 50; }},
      {"timing settings", [](RunRecord& r) { r.settings.timing.timer = TimerKind::kEvents; }},
      {"seed", [](RunRecord& r) { ++r.settings.seed; }},
      {"correctness rounds", [](RunRecord& r) { r.settings.correctness_rounds = 5; }},
      {"isolation", [](RunRecord& r) { r.settings.isolation = false; }},
  };
  for (const Difference& difference : differences) {
    TwoHalves halves = split_run(32);
    difference.change(halves.second);
    INFO(difference.what);
    const std::vector<NamedRun> runs = {{"a.json", halves.first}, {"b.json", halves.second}};
    CHECK_THROWS_AS(merge_runs(runs, false), InputError);
    CHECK_THROWS_WITH(merge_runs(runs, false),
                      Catch::Contains(std::string("b.json differs from a.json in its ") + difference.what) &&
                          Catch::Contains("pass --force"));
    const MergedRun forced = merge_runs(runs, true);
    REQUIRE(forced.overridden.size() == 1);
    CHECK_THAT(forced.overridden.front(), Catch::Contains(difference.what));
    CHECK(forced.record.cases.size() == 6);
    CHECK(forced.record.settings.suite == halves.first.settings.suite);
  }
  // Every difference is named at once, not one per attempt.
  TwoHalves halves = split_run(33);
  halves.second.settings.suite = "sweep";
  halves.second.environment.gpu_name = "NVIDIA B200";
  CHECK_THROWS_WITH(merge_runs({{"a.json", halves.first}, {"b.json", halves.second}}, false),
                    Catch::Contains("its suite") && Catch::Contains("its GPU model") &&
                        Catch::Contains("\"NVIDIA B200\" (sm_90) vs \"NVIDIA H200\" (sm_90)"));
  CHECK_THROWS_AS(merge_runs({}, false), UsageError);
}

TEST_CASE("a case in two files is refused; forced, the later file's result is kept", "[report][merge]") {
  TwoHalves halves = split_run(34);
  CaseResult rerun = halves.first.cases[0];  // flash_sm90 #0, run again on the second host
  rerun.timing->stats.median *= 0.5;
  halves.second.cases.push_back(rerun);
  halves.second.summary = summarize(halves.second.cases, 20.0);
  const std::vector<NamedRun> runs = {{"a.json", halves.first}, {"b.json", halves.second}};
  CHECK_THROWS_WITH(merge_runs(runs, false),
                    Catch::Contains("#0 ") && Catch::Contains("of solution 'flash_sm90' is in both a.json and b.json"));
  const MergedRun forced = merge_runs(runs, true);
  REQUIRE(forced.record.cases.size() == 6);
  test::require_same_case(rerun, forced.record.cases[0]);
  REQUIRE(forced.overridden.size() == 1);
  CHECK_THAT(forced.overridden[0], Catch::Contains("the later file's result is kept"));
  // A custom shape run twice within one file is two cases, not a conflict.
  RunRecord twice = halves.whole;
  twice.cases.push_back(twice.cases[4]);
  CHECK(merge_runs({{"twice.json", twice}}, false).record.cases.size() == 7);
}

TEST_CASE("a run that did not finish merges from its partial file", "[report][merge]") {
  const testing::ScratchFolder folder;
  const TwoHalves halves = split_run(35);
  const auto path = folder.file("first.json");
  {
    RunRecord header = halves.first;
    header.cases.clear();
    header.summary.reset();
    ResultsWriter writer(path, header);
    writer.append_case(halves.first.cases[0]);
    writer.append_case(halves.first.cases[1]);
  }  // never finished: only the partial file exists
  const auto complete = folder.file("second.json");
  write_results_file(complete, halves.second);
  CHECK_THROWS_AS(read_results_or_partial(path), InputError);  // no complete file
  const RunRecord partial = read_results_or_partial(partial_results_path(path));
  CHECK(partial.cases.size() == 2);
  const RunRecord second = read_results_or_partial(complete);
  const MergedRun merged = merge_runs({{"partial", partial}, {"second", second}}, false);
  CHECK(merged.record.cases.size() == 5);
  // No summary in a partial file: its cases' own wall times count.
  const double partial_wall = halves.first.cases[0].wall_time_s + halves.first.cases[1].wall_time_s;
  CHECK(merged.record.summary->wall_time_s == Approx(partial_wall + 20.0));
}

}  // namespace vlb
