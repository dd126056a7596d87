#pragma once
// A device worker (`vlbench --device-worker FOLDER`): one GPU's share of a --devices run, run as an ordinary run on
// that GPU alone (its own per-case workers, its own judge), its results file kept up to date case by case in FOLDER:
//   plan.json                       parent -> worker: the serialized plan (its device, its share, its results file)
//   results.json(.partial.jsonl)    worker -> parent: the run's results, as any run writes them
//   worker.log                      the worker's output, whose last lines explain a worker that died
#include <cstdio>
#include <filesystem>
#include <vector>

#include "harness/report/results.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/judge/suite_runner.hpp"

namespace vlb {

struct DeviceWorkerFiles {
  std::filesystem::path folder;
  std::filesystem::path plan() const { return folder / "plan.json"; }
  std::filesystem::path results() const { return folder / "results.json"; }
  std::filesystem::path log() const { return folder / "worker.log"; }
};

// The plan of the worker for `device`, running `share` of the parent's cases, its results in `files`.
RunPlan device_worker_plan(const RunPlan& parent, int device, const ShardSpec& share, const DeviceWorkerFiles& files);
// The worker's whole job; progress lines go to `progress`.
RunOutput execute_device_worker(const std::filesystem::path& folder, std::FILE* progress);

// The cases the worker has finished so far, in its run order: from its complete results file once it exists, else
// from its partial file (empty while neither exists). Throws InputError while the partial file has no header line yet,
// or when what the worker wrote is malformed.
std::vector<CaseResult> finished_device_cases(const DeviceWorkerFiles& files);
// Whether the worker got past its set-up (its GPU, the plan) to its cases: it has begun its results file.
bool device_worker_began(const DeviceWorkerFiles& files);

}  // namespace vlb
