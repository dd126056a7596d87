#pragma once
// `vlbench merge A.json B.json ... -o all.json [--force]`: results files of separate runs (other hosts, the shards of a
// Slurm job array) into one, with the summary recomputed (report/results_merge.hpp holds the rules).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace vlb::cli {

struct MergeRequest {
  std::vector<std::filesystem::path> inputs;  // results files, or partial files of runs that did not finish
  std::filesystem::path output;
  bool force = false;             // merge runs whose results do not compare, saying what differed
  std::vector<std::string> argv;  // the command line, recorded in the merged file
};

int run_merge_command(const MergeRequest& request, std::FILE* out);  // returns 0; errors are thrown

}  // namespace vlb::cli
