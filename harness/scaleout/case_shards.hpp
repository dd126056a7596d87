#pragma once
// Splitting the selected cases into disjoint shares: `--shard i/n` (one task of a Slurm job array) and `--devices`
// (one device worker per GPU) use the same rule, so that a share depends only on the cases and the count, and every
// task of a job array computes its own share without talking to the others.
// The rule: cases are weighed by their work (FLOPs: the checks and the timing both scale with it), taken from the
// heaviest down (ties: the earlier case first) and each given to the share with the least work so far (ties: the
// lower share index). A share keeps its cases in selection order.
#include <string>
#include <string_view>
#include <vector>

#include "harness/plan/run_plan.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

// "i/n" with 0 <= i < n (0-based, as a job array numbered 0..n-1). Throws UsageError saying what is wrong.
ShardSpec parse_shard(std::string_view text);
std::string shard_text(const ShardSpec& shard);  // "i/n"

// The positions (into `cases`) of one share, ascending. Throws UsageError for an index outside 0..count-1.
std::vector<int> shard_positions(const std::vector<Case>& cases, const ShardSpec& shard);

// The suite, its selected cases and the plan's shards applied in order: what a run (or a worker of it) runs.
// Move it, never copy it: a copy's cases would point into the original's suite.
struct SelectedCases {
  Suite suite;
  std::vector<Case> cases;  // each points into suite.workloads
};
SelectedCases select_plan_cases(const RunPlan& plan);  // throws UsageError/InputError

}  // namespace vlb
