// scripts/slurm on a real (local, single-node) Slurm: the job array gives each task one GPU and one shard, and the
// merge step waits for the array and joins the shards' results, a shard that died included.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "harness/core/json_value.hpp"
#include "harness/report/results_json.hpp"
#include "harness/scaleout/case_shards.hpp"
#include "slurm/support_local_slurm.hpp"
#include "support/process.hpp"
#include "support/run_fixtures.hpp"
#include "support/scratch_folder.hpp"

namespace {

namespace fs = std::filesystem;
using vlb::testing::builtin_cases;
using vlb::testing::local_slurm;
using vlb::testing::uuids_in;

constexpr double kJobTimeoutS = 180;

fs::path script(const std::string& name) { return fs::path(VLBENCH_SOURCE_DIR) / "scripts" / "slurm" / name; }

std::set<std::string> shard_uuids(const vlb::SelectedCases& suite, int index, int count) {
  std::set<std::string> uuids;
  for (int position : vlb::shard_positions(suite.cases, {index, count})) uuids.insert(suite.cases[position].uuid);
  return uuids;
}

// Where the stand-in GPUs cannot be made, the array script's --gres=gpu:1 cannot be granted: ask for none.
std::vector<std::string> gres_override() {
  return local_slurm().gpus() > 0 ? std::vector<std::string>{} : std::vector<std::string>{"--gres=none"};
}

void wait_for(const std::string& job, const fs::path& folder) {
  INFO(local_slurm().daemon_logs());
  INFO("job " << job << " in " << folder);
  REQUIRE(local_slurm().wait(job, kJobTimeoutS));
}

}  // namespace

TEST_CASE("each task of the job array gets one GPU and runs its own shard", "[slurm]") {
  const vlb::testing::ScratchFolder out;
  const std::vector<std::string> vlbench = {"VLBENCH=" + vlb::testing::vlbench_binary()};
  std::vector<std::string> arguments = {"--array=0-3", "--chdir=" + out.path().string(),
                                        "--output=" + out.file("list-%a.log").string()};
  const auto gres = gres_override();
  arguments.insert(arguments.end(), gres.begin(), gres.end());
  arguments.insert(arguments.end(), {script("vlbench_shards.sbatch").string(), "--list"});
  const std::string job = local_slurm().submit(arguments, vlbench);
  wait_for(job, out.path());

  const vlb::SelectedCases suite = builtin_cases();
  std::set<std::string> covered;
  std::set<std::string> gpus_used;
  for (int index = 0; index < 4; ++index) {
    const std::string log = vlb::testing::read_text(out.file("list-" + std::to_string(index) + ".log"));
    INFO(log);
    CHECK_THAT(log, Catch::Contains("vlbench shard " + std::to_string(index) + "/4"));
    CHECK_THAT(log, Catch::Contains("(shard " + std::to_string(index) + "/4)"));
    const std::set<std::string> listed = uuids_in(log);
    CHECK(listed == shard_uuids(suite, index, 4));
    for (const std::string& uuid : listed) CHECK(covered.insert(uuid).second);  // no case in two shards
    if (local_slurm().gpus() > 0) {
      std::smatch gpu;
      REQUIRE(std::regex_search(log, gpu, std::regex("CUDA_VISIBLE_DEVICES=([^ \n]*)")));
      CHECK(std::regex_match(gpu[1].str(), std::regex("[0-9]")));  // exactly one GPU
      gpus_used.insert(gpu[1].str());
    } else {
      WARN("no stand-in GPUs (mknod refused): the one-GPU-per-task check is left out");
    }
  }
  CHECK(covered.size() == 16);
  if (local_slurm().gpus() > 0) CHECK(gpus_used.size() <= static_cast<std::size_t>(local_slurm().gpus()));
}

TEST_CASE("an array numbered from elsewhere still runs shards 0..n-1", "[slurm]") {
  const vlb::testing::ScratchFolder out;
  std::vector<std::string> arguments = {"--array=5-6", "--chdir=" + out.path().string(),
                                        "--output=" + out.file("list-%a.log").string()};
  const auto gres = gres_override();
  arguments.insert(arguments.end(), gres.begin(), gres.end());
  arguments.insert(arguments.end(), {script("vlbench_shards.sbatch").string(), "--list"});
  const std::string job = local_slurm().submit(arguments, {"VLBENCH=" + vlb::testing::vlbench_binary()});
  wait_for(job, out.path());
  const vlb::SelectedCases suite = builtin_cases();
  CHECK(uuids_in(vlb::testing::read_text(out.file("list-5.log"))) == shard_uuids(suite, 0, 2));
  CHECK(uuids_in(vlb::testing::read_text(out.file("list-6.log"))) == shard_uuids(suite, 1, 2));
}

TEST_CASE("submit.sh runs the shards, then merges them once all have ended, a shard that died included", "[slurm]") {
  const vlb::testing::ScratchFolder work;
  const fs::path out = work.file("run");
  const vlb::SelectedCases suite = builtin_cases();
  constexpr int kShards = 3;
  constexpr int kDeadShard = 1;  // it reports one case and dies, leaving its partial file

  // What each shard's run would write (the real cases of its share), and a stand-in vlbench that writes it after a
  // pause, so that a merge started too early would find nothing; `merge` goes to the real vlbench.
  std::mt19937_64 rng(31337);
  std::vector<vlb::CaseResult> expected;
  for (int index = 0; index < kShards; ++index) {
    vlb::RunRecord run = vlb::testing::fixture_header({"template"}, 20260);
    for (int position : vlb::shard_positions(suite.cases, {index, kShards})) {
      run.cases.push_back(vlb::testing::fixture_case("template", suite.cases[position], rng));
    }
    const fs::path fixture = work.file("fixture-" + std::to_string(index));
    if (index == kDeadShard) {
      vlb::RunRecord header = run;
      header.cases.clear();
      std::ofstream(fixture.string() + ".partial.jsonl")
          << vlb::dump_json(vlb::to_json(header)) << '\n' << vlb::dump_json(vlb::to_json(run.cases[0])) << '\n';
      expected.push_back(run.cases[0]);
    } else {
      run.summary = vlb::summarize(run.cases, 4.0);
      vlb::write_results_file(fixture.string() + ".json", run);
      expected.insert(expected.end(), run.cases.begin(), run.cases.end());
    }
  }
  std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.case_index < b.case_index; });
  const fs::path stand_in = work.write("vlbench-stand-in.sh",
                                       "#!/bin/sh\n"
                                       "if [ \"$1\" = merge ]; then exec '" + vlb::testing::vlbench_binary() + "' \"$@\"; fi\n"
                                       "echo \"$@\" > '" + work.path().string() + "/args-'\"$SLURM_ARRAY_TASK_ID\"\n"
                                       "while [ $# -gt 0 ]; do\n"
                                       "  case \"$1\" in --json) json=$2; shift ;; --shard) shard=$2; shift ;; esac\n"
                                       "  shift\ndone\n"
                                       "fixture='" + work.path().string() + "/fixture-'\"${shard%/*}\"\n"
                                       "sleep 2\n"
                                       "if [ -f \"$fixture.json\" ]; then cp \"$fixture.json\" \"$json\"; exit 0; fi\n"
                                       "cp \"$fixture.partial.jsonl\" \"$json.partial.jsonl\"\n"
                                       "echo 'vlbench: error: CUDA error: an illegal memory access' >&2; exit 3\n");
  fs::permissions(stand_in, fs::perms::owner_all);

  std::vector<std::string> environment = local_slurm().environment();
  environment.push_back("VLBENCH=" + stand_in.string());
  if (local_slurm().gpus() == 0) environment.push_back("SBATCH_GRES=none");
  const auto submitted = vlb::testing::run_process(
      script("submit.sh").string(), {out.string(), std::to_string(kShards), "-s", "template", "--check-only"},
      environment);
  INFO(submitted.output);
  REQUIRE(submitted.exit_code == 0);
  std::smatch jobs;
  REQUIRE(std::regex_search(submitted.output, jobs, std::regex("job array ([0-9]+) .*merge: job ([0-9]+)")));
  wait_for(jobs[1].str(), out);
  wait_for(jobs[2].str(), out);

  // Each task ran the command with its shard and its own results file.
  for (int index = 0; index < kShards; ++index) {
    const std::string shard = std::to_string(index) + "-of-" + std::to_string(kShards);
    CHECK(vlb::testing::read_text(work.file("args-" + std::to_string(index))) ==
          "-s template --check-only --json " + (out / ("shard-" + shard + ".json")).string() + " --shard " +
              std::to_string(index) + "/" + std::to_string(kShards) + "\n");
    CHECK(fs::exists(out / ("shard-" + shard + ".log")));
  }
  const std::string merge_log = vlb::testing::read_text(out / "merge.log");
  INFO(merge_log);
  CHECK_THAT(merge_log, Catch::Contains("shard 1/3 did not finish"));
  REQUIRE(fs::exists(out / "results.json"));
  const vlb::RunRecord merged = vlb::read_results_file(out / "results.json");
  REQUIRE(merged.cases.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(vlb::to_json(merged.cases[i]) == vlb::to_json(expected[i]));
  CHECK(merged.summary->passed == static_cast<int>(expected.size()));
  CHECK(merged.argv.at(1) == "merge");
}

TEST_CASE("the merge step stops and names the shard that left nothing", "[slurm]") {
  const vlb::testing::ScratchFolder out;
  std::mt19937_64 rng(4);
  const vlb::SelectedCases suite = builtin_cases();
  vlb::RunRecord only = vlb::testing::fixture_header({"template"}, 1);
  only.cases.push_back(vlb::testing::fixture_case("template", suite.cases[3], rng));
  only.summary = vlb::summarize(only.cases, 1.0);
  vlb::write_results_file(out.file("shard-0-of-2.json"), only);
  const std::string job = local_slurm().submit(
      {"--chdir=" + out.path().string(), "--output=" + out.file("merge.log").string(),
       script("vlbench_merge.sbatch").string(), out.file("shard-{shard}.json").string(), "2",
       out.file("results.json").string()},
      {"VLBENCH=" + vlb::testing::vlbench_binary()});
  wait_for(job, out.path());
  const std::string log = vlb::testing::read_text(out.file("merge.log"));
  INFO(log);
  CHECK_THAT(log, Catch::Contains("no results from shard(s) 1/2"));
  CHECK_FALSE(fs::exists(out.file("results.json")));
}
