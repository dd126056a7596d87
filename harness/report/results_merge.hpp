#pragma once
// Merging results files of separate runs (other hosts, the shards of a Slurm job array) into one: `vlbench merge`.
// Runs merge only when their results compare: the same suite, harness (version and commit), GPU model, speed-of-light
// spec, baseline and measurement settings (timing, seed, rounds, isolation); `force` merges them anyway and reports
// what differed. The rules are in docs/results-schema.md, "Merging runs".
#include <filesystem>
#include <string>
#include <vector>

#include "harness/report/results.hpp"

namespace vlb {

struct NamedRun {
  std::string name;  // where it came from (a file), for messages
  RunRecord run;
};

struct MergedRun {
  RunRecord record;                     // argv left empty: the caller records the command that made it
  std::vector<std::string> overridden;  // what `force` let through (empty without it)
};

// Throws InputError naming the files and every difference that stops the merge (none with `force`).
MergedRun merge_runs(const std::vector<NamedRun>& runs, bool force);

// A complete results file, or the partial file (PATH.partial.jsonl) a run that did not finish left behind, validated.
RunRecord read_results_or_partial(const std::filesystem::path& path);

}  // namespace vlb
