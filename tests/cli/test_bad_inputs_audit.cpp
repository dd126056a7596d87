// Issue 24: the scripts' cases of the audit, the issue's items beyond its log, and the check that the tables hold
// every case of the log (tests/cli/bad_inputs_audit.tsv) exactly once, so that each stays handled.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/support_bad_inputs.hpp"
#include "support/scratch_folder.hpp"

namespace vlb::testing {

namespace {

namespace fs = std::filesystem;

const std::string kTemplate = "{C}/results/h200/template.json";

// The issue's items that are not a line of the log; their names say so.
constexpr std::string_view kBeyondLog = "issue 24: ";

std::vector<std::string> plot(const std::string& file) {
  return {"{C}/scripts/plot.py", file, "--out", "{S}/plots"};
}

// {case name: exit code at 5d8b882}, from the audit.
std::map<std::string, int> audit_cases() {
  std::ifstream file(fs::path(VLBENCH_SOURCE_DIR) / "tests" / "cli" / "bad_inputs_audit.tsv");
  REQUIRE(file);
  std::map<std::string, int> cases;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line.front() == '#') continue;
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    cases.emplace(line.substr(0, tab), std::stoi(line.substr(tab + 1)));
  }
  return cases;
}

}  // namespace

std::vector<BadInputRow> script_and_issue_rows() {
  return {
      {"upstream_check.sh (no args)", 2, {"Evaluates `vlbench package` output"}, {"{C}/scripts/upstream_check.sh"},
       "bash"},
      {"upstream_check.sh bogus", 2, {"Evaluates `vlbench package` output"}, {"{C}/scripts/upstream_check.sh", "bogus"},
       "bash"},
      {"run_gpu_checks.sh (no args)", 2, {"Everything that needs a GPU"}, {"{C}/scripts/run_gpu_checks.sh"}, "bash"},
      {"submit.sh (no args)", 2, {"Runs a vlbench command on a Slurm cluster"},
       {"{C}/scripts/slurm/submit.sh"}, "bash"},
      {"submit.sh bad SHARDS", 2, {"submit.sh: SHARDS must be a positive integer, got 'abc'"},
       {"{C}/scripts/slurm/submit.sh", "{S}/out/slurm", "abc"}, "bash"},
      {"submit.sh 0 shards", 2, {"submit.sh: SHARDS must be a positive integer, got '0'"},
       {"{C}/scripts/slurm/submit.sh", "{S}/out/slurm", "0"}, "bash"},
      {"plot.py missing file", 2, {"plot.py: {S}/none.json: not a vlbench results file"},
       plot("{S}/none.json"), "python3"},
      {"plot.py garbage file", 2, {"plot.py: {S}/rf/garbage.json: not a vlbench results file"},
       plot("{S}/rf/garbage.json"), "python3"},
      {"plot.py huge latency", 2,
       {"plot.py: {S}/rf/huge_latency.json: /cases/0/timing/stats/median: ", "is not a possible latency"},
       plot("{S}/rf/huge_latency.json"), "python3", {}, false, {},
       [](const BadInputFixtures& f) { CHECK_FALSE(fs::exists(f.file("plots/latency.png"))); }},
      {"plot.py partial", 2, {"plot.py: {S}/rf/p.json.partial.jsonl: a partial file", "vlbench merge"},
       plot("{S}/rf/p.json.partial.jsonl"), "python3"},
      // Without site-packages, as on a machine without torch: a missing package is the system's (exit 3).
      {"pytorch_baseline.py (no torch)", 3, {"pytorch_baseline.py: needs the Python package torch"},
       {"-S", "{C}/scripts/pytorch_baseline.py"}, "python3"},

      {"issue 24: vlbench package --solution reference says the reference is built in", 2,
       {"solution 'reference' is vlbench's built-in GPU reference (reference/), not a solution folder under "
        "solutions/, so it cannot be packaged"},
       {"package", "--solution", "reference", "-o", "{S}/out/reference.solution.json"}, "vlbench", {}, false,
       {"has no folder"}},
      {"issue 24: --list --json records the shard", 0, {"\"shards\": [", "\"count\": 4", "\"index\": 1"},
       {"--list", "--json", "--shard", "1/4"}},
      {"issue 24: a subcommand's --help shows that subcommand's examples only", 0,
       {"Usage: vlbench export", "vlbench export results/run.json -o traces.jsonl"}, {"export", "--help"}, "vlbench",
       {}, false, {"vlbench --list", "vlbench merge shard-0.json"}},
      {"issue 24: vlbench help is vlbench --help", 0, {"Usage: vlbench [OPTIONS] [SUBCOMMAND]", "Exit codes"},
       {"help"}},
      {"issue 24: vlbench help COMMAND is that command's help", 0, {"Usage: vlbench merge", "Examples:"},
       {"help", "merge"}},
      {"issue 24: export --reference from another GPU model is refused", 2,
       {"rf/reference_b200.json: --reference ran on NVIDIA B200 (sm_100)", "on another GPU model means nothing"},
       {"export", kTemplate, "--reference", "{S}/rf/reference_b200.json", "-o", "{S}/out/e4.jsonl"}},
      {"issue 24: a terminal escape in a workload uuid is printed escaped", 0, {"#0 \\x1b[31m-"},
       dry_run({"--suite", "{S}/s_escape/w.jsonl"})},
      {"issue 24: package -o over one of the solution's sources is refused", 2,
       {"it is also a source file of the package"},
       {"package", "-s", "template", "-o", "{S}/pkgroot/solutions/template/template_solution.cu"}, "vlbench",
       {"VLBENCH_WORKLOADS_DIR={S}/pkgroot/workloads"}, false, {},
       [](const BadInputFixtures& f) {
         CHECK(read_text(f.file("pkgroot/solutions/template/template_solution.cu")) ==
               read_text(fs::path(VLBENCH_SOURCE_DIR) / "solutions" / "template" / "template_solution.cu"));
       }},
      {"issue 24: options given to a subcommand's parent are refused", 2,
       {"`vlbench compare` takes none of the options of a run (--seed given before it)"},
       {"--seed", "5", "compare", kTemplate, kTemplate}},
  };
}

TEST_CASE("issue 24: the scripts' bad inputs, and the issue's items beyond the audit's log", "[cli][bad_inputs]") {
  run_bad_input_rows(script_and_issue_rows());
}

TEST_CASE("the tables hold every case of the audit's log once, and nothing else but the issue's own items",
          "[cli][bad_inputs]") {
  const std::map<std::string, int> audit = audit_cases();
  REQUIRE(audit.size() == 262);  // the log's rows
  std::set<std::string> in_tables;
  for (const auto& table :
       {suite_and_option_rows(), output_path_rows(), results_file_rows(), script_and_issue_rows()}) {
    for (const BadInputRow& row : table) {
      INFO("case: " << row.name);
      CHECK(in_tables.insert(row.name).second);  // once
      CHECK((audit.count(row.name) == 1 || row.name.starts_with(kBeyondLog)));
      // Every exit code is one the README documents; 139 (the crashes) and an exit 3 for bad input are gone.
      CHECK((row.exit_code >= 0 && row.exit_code <= 3));
    }
  }
  for (const auto& [name, old_exit_code] : audit) {
    INFO("case of the audit: " << name << " (exit " << old_exit_code << " at 5d8b882)");
    CHECK(in_tables.count(name) == 1);
  }
}

}  // namespace vlb::testing
