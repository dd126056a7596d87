#pragma once
// The folder a parent shares with one worker process:
//   task.json                 parent -> worker: the serialized plan, the solution, the case
//   outputs.json, output_<call>.bin   worker -> parent: the outputs to judge (raw bf16 bytes)
//   result.json               worker -> parent: the result so far (a one-case results file), written last
#include <filesystem>
#include <optional>
#include <string>

#include "harness/report/results.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/worker/solution_side.hpp"

namespace vlb {

struct WorkerTask {
  RunPlan plan;
  std::string solution;
  int case_position = 0;  // index into the plan's selected cases
};

void write_worker_task(const std::filesystem::path& folder, const WorkerTask& task);
WorkerTask read_worker_task(const std::filesystem::path& folder);  // SystemError when missing or malformed

// `header` is the results file's header (environment, settings); its cases are replaced by the run's result.
void write_worker_outcome(const std::filesystem::path& folder, const SolutionRun& run, RunRecord header);
// nullopt when the worker wrote no result.json (it died first); SystemError or InputError when what it wrote is
// malformed.
std::optional<SolutionRun> read_worker_outcome(const std::filesystem::path& folder);

}  // namespace vlb
