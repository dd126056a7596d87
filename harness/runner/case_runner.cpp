#include "harness/runner/case_runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <memory>

#include "harness/check/comparison.hpp"
#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/report/case_dump.hpp"
#include "harness/runner/input_pool.hpp"
#include "harness/runner/solution_call.hpp"

namespace vlb {
namespace {

// Device memory of one case: its inputs, the solution's output, the reference's output and both workspaces.
struct CaseBuffers {
  CaseBuffers(const ProblemShape& shape, std::size_t solution_workspace, std::size_t reference_workspace)
      : inputs(shape),
        output(tensor_spec(TensorId::kOutput, shape).bytes()),
        reference_output(tensor_spec(TensorId::kOutput, shape).bytes()),
        solution_workspace(solution_workspace),
        reference_workspace(reference_workspace) {}

  DeviceInputs inputs;
  DeviceBuffer output;
  DeviceBuffer reference_output;
  DeviceBuffer solution_workspace;
  DeviceBuffer reference_workspace;
};

int pool_placements(const TimingSettings& timing) {
  const int timed = timing.adaptive ? timing.adaptive->max_samples : timing.timed_iterations;
  return timing.warmup_iterations + timed;
}

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  VLB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::optional<std::string> memory_shortfall(const ProblemShape& shape, std::size_t solution_workspace,
                                            std::size_t reference_workspace, const RunPlan& plan) {
  const std::size_t output_bytes = tensor_spec(TensorId::kOutput, shape).bytes();
  std::size_t needed = solution_workspace + reference_workspace + 2 * output_bytes;
  for (int i = 0; i < kNumInputs; ++i) needed += tensor_spec(static_cast<TensorId>(i), shape).bytes();
  if (plan.time_cases) needed += ShiftingInputPool::bytes_needed(shape, pool_placements(plan.timing));
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

InputSettings round_settings(const RunPlan& plan, int round) {
  InputSettings settings;
  settings.seed = plan.seed + static_cast<std::uint64_t>(round);
  if (plan.correctness.forced_positions) {
    settings.positions = *plan.correctness.forced_positions;
  } else {
    const bool last_round = round == plan.correctness.rounds - 1;
    settings.positions = (last_round && plan.correctness.rounds > 1) ? PositionPattern::kRandom
                                                                      : PositionPattern::kOfficial;
  }
  return settings;
}

void compute_reference(const RunContext& context, CaseBuffers& buffers, const ProblemShape& shape) {
  const FusionArgs args = make_fusion_args(shape, buffers.inputs.view(), buffers.reference_output.as<bf16>(),
                                           buffers.reference_workspace, context.stream);
  context.reference.run(args);
  VLB_CUDA_CHECK(cudaStreamSynchronize(context.stream));
}

CorrectnessRound judge_output(const RunContext& context, const Case& test_case, const bf16* output,
                              const bf16* reference) {
  CorrectnessRound round;
  round.stats = compare_on_device(output, reference, tensor_spec(TensorId::kOutput, test_case.shape).elements(),
                                  test_case.tolerance, context.stream);
  const Verdict verdict = judge(round.stats, test_case.tolerance, context.plan.correctness.max_abs_error_cap);
  round.status = verdict.status;
  round.reason = verdict.reason;
  return round;
}

// One correctness round: fresh inputs, reference, poisoned output, fingerprinted inputs, the call, the comparison.
CorrectnessRound run_correctness_round(Solution& solution, const Case& test_case, const RunContext& context,
                                       CaseBuffers& buffers, int round_index) {
  const InputSettings settings = round_settings(context.plan, round_index);
  fill_case_inputs(test_case.workload, settings, buffers.inputs, context.stream);
  compute_reference(context, buffers, test_case.shape);

  const std::int64_t output_elements = tensor_spec(TensorId::kOutput, test_case.shape).elements();
  poison_bf16(buffers.output.data(), output_elements, context.stream);
  const InputFingerprints before = fingerprint_inputs(buffers.inputs, context.stream);
  const FusionArgs args = make_fusion_args(test_case.shape, buffers.inputs.view(), buffers.output.as<bf16>(),
                                           buffers.solution_workspace, context.stream);
  CorrectnessRound round;
  const std::size_t free_before_call = free_device_memory();
  const auto failure = call_and_wait(solution, args);
  const std::size_t allocated = allocated_since(free_before_call);
  if (failure) {
    round.status = failure->status;
    round.reason = failure->reason;
  } else if (round_index > 0 && allocated >= kAllocationSlackBytes) {
    // Round 0 may allocate once (library handles initialise lazily); later calls must not.
    round.status = CaseStatus::kRewardHack;
    round.reason = fmt::format("the solution kept {:.1f} MiB of device memory allocated during run(); size it in "
                               "workspace_bytes() instead", allocated / (1024.0 * 1024.0));
  } else if (const std::string modified = modified_inputs(before, fingerprint_inputs(buffers.inputs, context.stream));
             !modified.empty()) {
    round.status = CaseStatus::kRewardHack;
    round.reason = fmt::format("the solution modified its input(s): {}", modified);
  } else {
    round = judge_output(context, test_case, buffers.output.as<bf16>(), buffers.reference_output.as<bf16>());
  }
  round.seed = settings.seed;
  round.positions = std::string(position_pattern_name(settings.positions));
  return round;
}

// Times the solution with its inputs at a fresh address for every call, then checks the last timed output.
void time_case(Solution& solution, const Case& test_case, const RunContext& context, CaseBuffers& buffers,
               MemoryHighWater& memory, CaseResult& result) {
  const InputSettings settings = round_settings(context.plan, 0);
  fill_case_inputs(test_case.workload, settings, buffers.inputs, context.stream);
  compute_reference(context, buffers, test_case.shape);

  ShiftingInputPool pool(buffers.inputs, pool_placements(context.plan.timing));
  memory.sample();
  const std::int64_t output_elements = tensor_spec(TensorId::kOutput, test_case.shape).elements();
  int next_placement = 0;
  FusionArgs args;
  const PrepareCall prepare = [&](cudaStream_t stream, int) {
    const int placement = next_placement++;
    args = make_fusion_args(test_case.shape, pool.place(placement, stream), pool.output(placement),
                            buffers.solution_workspace, stream);
    poison_bf16(args.output.data, output_elements, stream);
  };
  const MeasuredCall call = [&](cudaStream_t, int) { solution.run(args); };

  try {
    result.timing = measure(call, prepare, context.plan.timing, context.device, context.stream);
    VLB_CUDA_CHECK(cudaStreamSynchronize(context.stream));
  } catch (const std::exception& error) {
    result.status = CaseStatus::kRuntimeError;
    result.reason = fmt::format("during timing: {}", error.what());
    return;
  }
  if (!result.timing->violations.empty()) {
    result.status = CaseStatus::kRewardHack;
    result.reason = fmt::format("during timing: {}", result.timing->violations.front());
    return;
  }
  CorrectnessRound last = judge_output(context, test_case, args.output.data, buffers.reference_output.as<bf16>());
  last.seed = settings.seed;
  last.positions = std::string(position_pattern_name(settings.positions));
  result.correctness.push_back(last);
  if (last.status != CaseStatus::kPassed) {
    result.status = last.status;
    result.reason = fmt::format("the last timed call's output: {}", last.reason);
  }
}

// The last checked round's inputs, output and reference output, for cross-checking in Python (--dump).
void dump_last_round(const Case& test_case, const RunContext& context, const CaseBuffers& buffers,
                     const CaseResult& result) {
  const CorrectnessRound& round = result.correctness.back();
  const std::map<std::string, std::string> metadata = {
      {"uuid", test_case.uuid},          {"solution", result.solution},
      {"seed", std::to_string(round.seed)}, {"positions", round.positions},
      {"status", std::string(status_name(round.status))}};
  write_case_dump(dump_file_name(*context.plan.dump_dir, test_case.uuid, test_case.shape), buffers.inputs,
                  buffers.output.data(), buffers.reference_output.data(), metadata, context.stream);
}

void add_speed_of_light(const Case& test_case, const RunContext& context, CaseResult& result) {
  result.sol = speed_of_light(result.work, context.gpu_spec);
  if (!result.timing || result.timing->samples_ms.empty()) return;
  const double latency_ms = result.timing->stats.median;
  result.sol_fraction = sol_fraction(result.sol->t_sol_ms, latency_ms);
  result.implausibly_fast = implausibly_fast(latency_ms, result.sol->t_sol_ms);
  if (context.baselines && !test_case.uuid.empty()) {
    result.baseline_ms = context.baselines->latency_for(test_case.uuid);
    if (result.baseline_ms) result.score = leaderboard_score(latency_ms, result.sol->t_sol_ms, *result.baseline_ms);
  }
}

}  // namespace

CaseResult run_case(Solution& solution, const Case& test_case, const RunContext& context) {
  const auto started = std::chrono::steady_clock::now();
  CaseResult result;
  result.solution = solution.info().name;
  result.case_index = test_case.index;
  result.uuid = test_case.uuid;
  result.shape = test_case.shape;
  result.tolerance = test_case.tolerance;
  result.work = count_work(test_case.shape);
  auto finish = [&]() -> CaseResult {
    result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
  };

  if (auto reason = solution.unsupported_reason(context.device, test_case.shape)) {
    result.status = CaseStatus::kSkipped;
    result.reason = *reason;
    return finish();
  }
  const std::size_t solution_workspace = solution.workspace_bytes(test_case.shape);
  const std::size_t reference_workspace = context.reference.workspace_bytes(test_case.shape);
  if (auto shortfall = memory_shortfall(test_case.shape, solution_workspace, reference_workspace, context.plan)) {
    result.status = CaseStatus::kSkipped;
    result.reason = *shortfall;
    return finish();
  }

  MemoryHighWater memory;
  CaseBuffers buffers(test_case.shape, solution_workspace, reference_workspace);
  memory.sample();
  result.status = CaseStatus::kPassed;
  for (int round = 0; round < context.plan.correctness.rounds; ++round) {
    result.correctness.push_back(run_correctness_round(solution, test_case, context, buffers, round));
    const CorrectnessRound& last = result.correctness.back();
    if (last.status != CaseStatus::kPassed) {
      result.status = last.status;
      result.reason = fmt::format("round {} (seed {}, {} positions): {}", round, last.seed, last.positions, last.reason);
      break;
    }
  }
  if (context.plan.dump_dir) dump_last_round(test_case, context, buffers, result);
  if (result.status == CaseStatus::kPassed && context.plan.time_cases) {
    time_case(solution, test_case, context, buffers, memory, result);
  }
  result.peak_device_memory_bytes = static_cast<double>(memory.peak_bytes());
  add_speed_of_light(test_case, context, result);
  return finish();
}

}  // namespace vlb
