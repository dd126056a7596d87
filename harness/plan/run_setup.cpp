#include "harness/plan/run_setup.hpp"

#include <fmt/format.h>
#include <vlbench_git.hpp>

#include <filesystem>

#include "harness/core/errors.hpp"
#include "harness/plan/environment.hpp"
#include "harness/plan/plan_check.hpp"

namespace vlb {
namespace {

RunRecord make_header(const RunPlan& plan, const EnvironmentRecord& environment,
                      const std::optional<BaselineTable>& baselines) {
  RunRecord record;
  record.harness_version = VLBENCH_VERSION;
  record.git_commit = VLBENCH_GIT_COMMIT;
  record.git_dirty = VLBENCH_GIT_DIRTY;
  record.argv = plan.argv;
  record.timestamp = utc_timestamp();
  record.environment = environment;
  record.settings.suite = plan.suite;
  record.settings.solutions = plan.solutions;
  record.settings.case_selectors = plan.case_selectors;
  record.settings.seed = plan.seed;
  record.settings.correctness_rounds = plan.correctness.rounds;
  record.settings.timing = plan.timing;
  record.settings.isolation = plan.isolation;
  record.settings.baseline_source = baselines ? baselines->source : "";
  return record;
}

}  // namespace

RunSetup set_up_run(const RunPlan& plan, const CheckedPlan& checked, const DeviceInfo& device) {
  RunSetup setup{select_gpu_spec(checked.gpu_specs, device.name, plan.gpu_spec_key), std::nullopt, {}};
  setup.baselines = find_baselines(checked, plan, setup.gpu_spec.key);
  setup.header = make_header(plan, collect_environment(device, setup.gpu_spec.key), setup.baselines);
  return setup;
}

RunRecord worker_header(const RunPlan& plan, const DeviceInfo& device) {
  return make_header(plan, collect_environment(device, plan.gpu_spec_key.value_or("")), std::nullopt);
}

}  // namespace vlb
