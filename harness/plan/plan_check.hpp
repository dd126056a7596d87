#pragma once
// Everything about a RunPlan that can be checked without a GPU, in one place: the suite and the selected cases, the
// solutions, gpus.json and --gpu-spec, the baseline tables, the results and dump paths, and the workloads' safetensors
// inputs. `vlbench --dry-run` stops after it; a real run does it first, so a bad request fails the same way, with
// exit 2, on a machine with or without a GPU.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/run_plan.hpp"
#include "harness/sol/baselines.hpp"
#include "harness/sol/speed_of_light.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

struct CheckedPlan {
  Suite suite;
  std::vector<Case> cases;  // point into suite.workloads; the plan's shards (--shard) applied
  std::vector<GpuSpec> gpu_specs;
  std::optional<GpuSpec> gpu_spec;          // when --gpu-spec names one; else chosen from the device at run time
  std::optional<BaselineTable> baselines;   // the table for gpu_spec (or --baseline), where one is known now
  std::vector<std::filesystem::path> baseline_files;  // every table read (all of them parse)
  std::vector<BaselineTable> baseline_tables;         // those tables, in the same order
  int file_inputs = 0;                      // safetensors inputs read and checked against the definition
};

// Throws UsageError / InputError (exit 2) naming what is wrong.
CheckedPlan check_plan(const RunPlan& plan);

// The baseline table a run on `gpu_key` uses: --baseline, else the first file of <workloads>/baselines/ (by name)
// for that GPU; none when there is none.
std::optional<BaselineTable> find_baselines(const CheckedPlan& checked, const RunPlan& plan,
                                           const std::string& gpu_key);

}  // namespace vlb
