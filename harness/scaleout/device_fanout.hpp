#pragma once
// --devices: the suite over several GPUs of one host. Each GPU gets one device worker process (device_worker.hpp)
// that runs its share of the cases (case_shards.hpp: balanced by work, fixed at the start) as an ordinary run on that
// GPU alone, so every case is checked and timed on a GPU where nothing else of the run is going on. This process
// touches no GPU: it starts the workers, follows their results files case by case (progress, and this run's own
// partial file), and writes the one results file in the order a run on one GPU would. A worker that dies costs the
// cases it had not finished (RUNTIME_ERROR, with its exit and last output lines); the other GPUs go on.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/report/results.hpp"
#include "harness/plan/run_plan.hpp"
#include "harness/judge/suite_runner.hpp"

namespace vlb {

// Checks the plan, finds the GPUs (all of one model, else UsageError), and runs the fan-out with vlbench's own
// device workers. Throws like execute_plan; a worker's failure is reported in its cases instead.
RunOutput execute_on_devices(const RunPlan& plan, std::FILE* progress);

// How a device worker is started for its folder (tests start a stand-in).
struct DeviceWorkerLaunch {
  std::filesystem::path executable;
  std::function<std::vector<std::string>(const std::filesystem::path& folder)> arguments;  // argv, program first
};
DeviceWorkerLaunch vlbench_device_worker();  // this vlbench, `--device-worker FOLDER`

// The fan-out itself: one worker per entry of `devices` that has a share, `header` as this run's results header.
RunOutput fan_out(const RunPlan& plan, const std::vector<int>& devices, const RunRecord& header,
                  const DeviceWorkerLaunch& launch, std::FILE* progress);

}  // namespace vlb
