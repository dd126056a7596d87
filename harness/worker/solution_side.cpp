#include "harness/worker/solution_side.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "harness/core/cuda_check.hpp"
#include "harness/judge/call_protocol.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/worker/solution_call.hpp"
#include "harness/judge/timed_output_sample.hpp"
#include "harness/timing/measurement.hpp"

namespace vlb {
namespace {

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  VLB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::optional<std::string> memory_shortfall(const ProblemShape& shape, std::size_t workspace_bytes,
                                            const CallSchedule& schedule, const RunPlan& plan) {
  std::size_t needed = CallProtocol::bytes_needed(shape, workspace_bytes, schedule);
  if (plan.time_cases) {
    needed += TimedOutputSample::bytes_needed(kSampledTimedCalls, tensor_spec(TensorId::kOutput, shape).bytes());
  }
  const std::size_t available = free_device_memory();
  if (needed <= available) return std::nullopt;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return fmt::format("the case needs {:.2f} GiB of device memory and {:.2f} GiB are free", needed / kGiB,
                     available / kGiB);
}

// Device memory a call may take for itself (allocator granularity) before it counts as allocating in run(). Checked
// in the correctness rounds only: during timing the harness itself holds CUPTI buffers.
constexpr std::size_t kAllocationSlackBytes = std::size_t{8} << 20;

std::size_t allocated_since(std::size_t free_before) {
  const std::size_t free_now = free_device_memory();
  return free_before > free_now ? free_before - free_now : 0;
}

// Device memory the case holds at its fullest: sampled after each allocation step.
class MemoryHighWater {
 public:
  MemoryHighWater() : free_at_start_(free_device_memory()) {}
  void sample() {
    const std::size_t now = free_device_memory();
    if (free_at_start_ > now) peak_ = std::max(peak_, free_at_start_ - now);
  }
  std::size_t peak_bytes() const { return peak_; }

 private:
  std::size_t free_at_start_;
  std::size_t peak_ = 0;
};

// One correctness round: the call and what can be judged without the reference. PASSED means "awaits judgement".
CorrectnessRound run_round(Solution& solution, CallProtocol& protocol, const CallSchedule& schedule, int call,
                           cudaStream_t stream) {
  const InputSettings settings = schedule.settings(call);
  CorrectnessRound round;
  round.seed = settings.seed;
  round.positions = std::string(position_pattern_name(settings.positions));
  const FusionArgs args = protocol.prepare(call, stream);
  const std::size_t free_before_call = free_device_memory();
  const auto failure = call_and_wait(solution, args);
  if (failure) {
    round.status = failure->status;
    round.reason = failure->reason;
    return round;
  }
  const std::size_t allocated = allocated_since(free_before_call);
  if (call > 0 && allocated >= kAllocationSlackBytes) {
    // Round 0 may allocate once (library handles initialise lazily); later calls must not.
    round.status = CaseStatus::kRewardHack;
    round.reason = fmt::format("the solution kept {:.1f} MiB of device memory allocated during run(); size it in "
                               "workspace_bytes() instead", allocated / (1024.0 * 1024.0));
  } else if (auto violation = protocol.inspect(call, stream)) {
    round.status = CaseStatus::kRewardHack;
    round.reason = *violation;
  }
  return round;
}

// Times the solution, every call with its own inputs at its own placement; copies the sampled and the last timed
// outputs to the host for judgement.
void time_calls(Solution& solution, CallProtocol& protocol, const CallSchedule& schedule,
                const SolutionSideContext& context, MemoryHighWater& memory, SolutionRun& run) {
  CaseResult& result = run.result;
  TimedOutputSample sample(kSampledTimedCalls, protocol.output_bytes());
  memory.sample();
  const int first_call = schedule.first_timing_call();
  FusionArgs args;
  int last_timed_call = -1;
  const PrepareCall prepare = [&](cudaStream_t stream, int iteration) {
    args = protocol.prepare(first_call + iteration, stream);
  };
  const MeasuredCall call = [&](cudaStream_t, int) { guard_solution_call("run", [&] { solution.run(args); }); };
  const InspectCall inspect = [&](cudaStream_t stream, int iteration, bool timed) -> std::optional<std::string> {
    const int index = first_call + iteration;
    if (context.on_call) context.on_call(index + 1);
    if (auto violation = protocol.inspect(index, stream)) return fmt::format("{}: {}", schedule.label(index), *violation);
    if (timed) {
      sample.offer(index, protocol.output(index), stream);
      last_timed_call = index;
    }
    return std::nullopt;
  };

  try {
    result.timing = measure(call, prepare, context.plan.timing, context.device, context.stream, inspect);
    VLB_CUDA_CHECK(cudaStreamSynchronize(context.stream));
  } catch (const std::exception& error) {
    result.timing.reset();
    result.status = CaseStatus::kRuntimeError;
    result.reason = fmt::format("during timing: {}", error.what());
    return;
  }
  if (!result.timing->violations.empty()) {
    result.status = CaseStatus::kRewardHack;
    result.reason = fmt::format("during timing: {}", result.timing->violations.front());
    if (result.timing->samples_ms.empty()) result.timing.reset();
    return;
  }
  for (const TimedOutputSample::Entry& entry : sample.entries()) {
    if (entry.call == last_timed_call) continue;
    CapturedOutput captured{entry.call, std::vector<std::byte>(protocol.output_bytes())};
    VLB_CUDA_CHECK(cudaMemcpy(captured.bytes.data(), entry.output, captured.bytes.size(), cudaMemcpyDeviceToHost));
    run.captured.push_back(std::move(captured));
  }
  run.captured.push_back({last_timed_call, protocol.copy_output(last_timed_call, context.stream)});
}

}  // namespace

CaseResult new_case_result(const std::string& solution, const Case& test_case) {
  CaseResult result;
  result.solution = solution;
  result.case_index = test_case.index;
  result.uuid = test_case.uuid;
  result.shape = test_case.shape;
  result.tolerance = test_case.tolerance;
  result.work = count_work(test_case.shape);
  return result;
}

SolutionRun run_solution_calls(Solution& solution, const Case& test_case, const SolutionSideContext& context) {
  SolutionRun run;
  CaseResult& result = run.result;
  result = new_case_result(solution.info().name, test_case);
  const CallSchedule schedule(context.plan);
  try {
    const auto unsupported = guard_solution_call(
        "unsupported_reason", [&] { return solution.unsupported_reason(context.device, test_case.shape); });
    if (unsupported) {
      result.status = CaseStatus::kSkipped;
      result.reason = *unsupported;
      return run;
    }
    const std::size_t workspace_bytes =
        guard_solution_call("workspace_bytes", [&] { return solution.workspace_bytes(test_case.shape); });
    if (auto shortfall = memory_shortfall(test_case.shape, workspace_bytes, schedule, context.plan)) {
      result.status = CaseStatus::kSkipped;
      result.reason = *shortfall;
      return run;
    }

    MemoryHighWater memory;
    CallProtocol protocol(test_case, schedule, workspace_bytes, context.stream);
    memory.sample();
    result.status = CaseStatus::kPassed;
    bool rounds_clean = true;
    for (int call = 0; call < schedule.rounds() && rounds_clean; ++call) {
      result.correctness.push_back(run_round(solution, protocol, schedule, call, context.stream));
      if (context.on_call) context.on_call(call + 1);
      rounds_clean = result.correctness.back().status == CaseStatus::kPassed;
      if (rounds_clean) run.captured.push_back({call, protocol.copy_output(call, context.stream)});
    }
    if (rounds_clean && context.plan.time_cases) time_calls(solution, protocol, schedule, context, memory, run);
    result.peak_device_memory_bytes = static_cast<double>(memory.peak_bytes());
  } catch (const SolutionFault& fault) {
    result.status = CaseStatus::kRuntimeError;
    result.reason = fault.what();
  }
  return run;
}

}  // namespace vlb
