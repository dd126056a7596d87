#include "harness/scaleout/device_worker.hpp"

#include "harness/report/partial_results.hpp"
#include "harness/report/results_json.hpp"
#include "harness/plan/run_plan_json.hpp"

namespace vlb {

RunPlan device_worker_plan(const RunPlan& parent, int device, const ShardSpec& share, const DeviceWorkerFiles& files) {
  RunPlan plan = parent;
  plan.devices.reset();
  plan.device = device;
  plan.shards.push_back(share);
  plan.json_path = files.results();
  return plan;
}

RunOutput execute_device_worker(const std::filesystem::path& folder, std::FILE* progress) {
  return execute_plan(read_plan_file(DeviceWorkerFiles{folder}.plan()), progress);
}

std::vector<CaseResult> finished_device_cases(const DeviceWorkerFiles& files) {
  // The complete file appears by rename before the partial file is removed, so one of them always holds every
  // finished case.
  if (std::filesystem::exists(files.results())) return read_results_file(files.results()).cases;
  const std::filesystem::path partial = partial_results_path(files.results());
  if (std::filesystem::exists(partial)) return read_partial_results(partial).cases;
  return {};
}

bool device_worker_began(const DeviceWorkerFiles& files) {
  return std::filesystem::exists(files.results()) || std::filesystem::exists(partial_results_path(files.results()));
}

}  // namespace vlb
