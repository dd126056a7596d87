#include "harness/judge/local_host.hpp"

#include <chrono>

#include "harness/core/errors.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/judge/nvtx_range.hpp"
#include "harness/worker/calibration_call.hpp"
#include "harness/worker/solution_call.hpp"

namespace vlb {

LocalHost::LocalHost(const DeviceInfo& device, CallTimer& timer, bool nvtx_ranges)
    : device_(device), timer_(timer), nvtx_ranges_(nvtx_ranges) {}

namespace {
const char* range_name(protocol::CallKind kind) {
  switch (kind) {
    case protocol::CallKind::kCalibration: return "vlbench: calibration call";
    case protocol::CallKind::kRound: return "vlbench: round";
    case protocol::CallKind::kWarmup: return "vlbench: warm-up call";
    case protocol::CallKind::kTimed: return "vlbench: timed call";
  }
  return "vlbench: call";
}
}  // namespace

HostLoad LocalHost::load(const CatalogEntry& entry, const ProblemShape& shape) {
  shape_ = shape;
  try {
    module_ = SolutionModule::open(entry.module);
    solution_.emplace(module_->create(entry.info.name));
    Solution& solution = **solution_;
    HostLoad loaded;
    loaded.unsupported_reason =
        guard_solution_call("unsupported_reason", [&] { return solution.unsupported_reason(device_, shape); });
    if (!loaded.unsupported_reason) {
      loaded.workspace_bytes = guard_solution_call("workspace_bytes", [&] { return solution.workspace_bytes(shape); });
    }
    return loaded;
  } catch (const SolutionFault& fault) {
    throw HostFailure(CaseStatus::kRuntimeError, fault.what());
  } catch (const Error& error) {
    throw HostFailure(CaseStatus::kRuntimeError, error.message());
  }
}

HostCall LocalHost::call(std::uint64_t call, protocol::CallKind kind, const CallPlacements& placements, int placement,
                         const std::function<void()>& on_done) {
  const bool calibration = kind == protocol::CallKind::kCalibration;
  FusionArgs args;
  if (!calibration) {
    std::array<const void*, kNumInputs> inputs{};
    const auto placed = placements.inputs(placement);
    for (int i = 0; i < kNumInputs; ++i) inputs[i] = placed[i];
    args = make_fusion_args(shape_, make_fusion_inputs(shape_, inputs), static_cast<bf16*>(placements.output(placement)),
                            placements.workspace(), placements.workspace_bytes(), stream_.get());
  }
  HostCall result;
  const auto started = std::chrono::steady_clock::now();
  try {
    const CallTiming timing = timer_.time(stream_.get(), calibration || kind == protocol::CallKind::kTimed, [&] {
      // The call alone, after the timer's lead-in kernel: a profiler that captures the range sees the solution only.
      const NvtxRange range(nvtx_ranges_, range_name(kind));
      if (calibration) {
        launch_calibration_call(stream_.get());
      } else {
        guard_solution_call("run", [&] { (**solution_).run(args); });
      }
    });
    result.event_ms = timing.event_ms;
    result.stop_observed_ns = timing.stop_observed_ns;
    if (timing.activity_index >= 0) traced_.emplace_back(call, timing.activity_index);
  } catch (const SolutionFault& fault) {
    result.failure = fault.what();
  } catch (const Error& error) {
    result.failure = "CUDA error during the solution's call: " + error.message();
  }
  if (on_done && !result.failure) on_done();
  result.outside_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return result;
}

std::vector<CallActivity> LocalHost::activities(const std::vector<std::uint64_t>& calls) {
  std::vector<int> indices;
  for (const std::uint64_t call : calls) {
    for (const auto& [traced, index] : traced_) {
      if (traced == call) indices.push_back(index);
    }
  }
  return timer_.activities(indices);
}

}  // namespace vlb
