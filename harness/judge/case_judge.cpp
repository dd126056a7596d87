#include "harness/judge/case_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "harness/check/comparison.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/report/case_dump.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/worker/solution_call.hpp"
#include "harness/sol/physical_floor.hpp"
#include "reference/gpu_reference.hpp"

namespace vlb {

// The device memory of one case's judgement: the inputs of the call being judged, its output as the solution wrote
// it, the reference's output and workspace.
struct CaseJudge::Judgement {
  Judgement(const Case& test_case, Solution& reference, cudaStream_t stream)
      : test_case(test_case),
        reference(reference),
        stream(stream),
        source(test_case.workload, test_case.shape, stream),
        inputs(test_case.shape),
        output(tensor_spec(TensorId::kOutput, test_case.shape).bytes()),
        reference_output(output.bytes()),
        reference_workspace(reference.workspace_bytes(test_case.shape)) {}

  CorrectnessRound judge(const CapturedOutput& captured, const CallSchedule& schedule, const RunPlan& plan) {
    const InputSettings settings = schedule.settings(captured.call);
    CorrectnessRound round;
    round.seed = settings.seed;
    round.positions = std::string(position_pattern_name(settings.positions));
    if (captured.bytes.size() != output.bytes()) {
      round.status = CaseStatus::kRuntimeError;
      round.reason = fmt::format("{} bytes of output came back from the call, {} expected", captured.bytes.size(),
                                 output.bytes());
      return round;
    }
    compute_reference(settings);
    VLB_CUDA_CHECK(cudaMemcpyAsync(output.data(), captured.bytes.data(), output.bytes(), cudaMemcpyHostToDevice, stream));
    const std::int64_t elements = tensor_spec(TensorId::kOutput, test_case.shape).elements();
    if (const std::string bad = non_finite_reference(elements); !bad.empty()) {
      round.status = CaseStatus::kIncorrectNumerical;
      round.reason = bad;
      return round;
    }
    round.stats = compare_on_device(output.as<bf16>(), reference_output.as<bf16>(), elements, test_case.tolerance, stream);
    const Verdict verdict = vlb::judge(round.stats, test_case.tolerance, plan.correctness.max_abs_error_cap);
    round.status = verdict.status;
    round.reason = verdict.reason;
    return round;
  }

  void dump(const std::filesystem::path& dir, const std::string& solution, const CorrectnessRound& round) const {
    const std::map<std::string, std::string> metadata = {
        {"uuid", test_case.uuid},           {"solution", solution},
        {"seed", std::to_string(round.seed)}, {"positions", round.positions},
        {"status", std::string(status_name(round.status))}};
    write_case_dump(dump_file_name(dir, test_case.uuid, test_case.shape), inputs, output.data(), reference_output.data(),
                    metadata, stream);
  }

 private:
  void compute_reference(const InputSettings& settings) {
    std::array<void*, kNumInputs> destinations{};
    for (int i = 0; i < kNumInputs; ++i) destinations[i] = inputs.data(static_cast<TensorId>(i));
    source.fill(settings, destinations, stream);
    reference.run(make_fusion_args(test_case.shape, inputs.view(), reference_output.as<bf16>(), reference_workspace,
                                   stream));
    VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // As the official evaluator: a NaN or Inf in the reference output fails the case, whatever the solution wrote.
  std::string non_finite_reference(std::int64_t elements) const {
    const ComparisonStats self = compare_on_device(reference_output.as<bf16>(), reference_output.as<bf16>(), elements,
                                                   test_case.tolerance, stream);
    if (self.nan_count == 0 && self.inf_count == 0) return {};
    return fmt::format("the reference output has {} NaN and {} Inf elements (of {}): the case fails, as in the "
                       "official evaluator", self.nan_count, self.inf_count, elements);
  }

  const Case& test_case;
  Solution& reference;
  cudaStream_t stream;
  CaseInputSource source;
  DeviceInputs inputs;
  DeviceBuffer output;
  DeviceBuffer reference_output;
  DeviceBuffer reference_workspace;
};

CaseJudge::CaseJudge(const RunPlan& plan, const DeviceInfo& device, const GpuSpec& gpu_spec,
                     const std::optional<BaselineTable>& baselines)
    : plan_(plan), device_(device), gpu_spec_(gpu_spec), baselines_(baselines) {}

CaseJudge::~CaseJudge() = default;

namespace {

// What the solution's side owes the judgement: an output for every round it reports as awaiting judgement, and for
// the last timed call. Anything missing (a broken or tampered worker) fails the case rather than pass it unjudged.
std::optional<std::string> missing_outputs(const CaseResult& result, const std::vector<CapturedOutput>& captured,
                                           const CallSchedule& schedule) {
  auto has_output = [&](int call) {
    return std::any_of(captured.begin(), captured.end(), [&](const CapturedOutput& c) { return c.call == call; });
  };
  for (std::size_t r = 0; r < result.correctness.size(); ++r) {
    const CorrectnessRound& round = result.correctness[r];
    if (round.status != CaseStatus::kPassed) break;
    if (!has_output(static_cast<int>(r))) return fmt::format("no output came back for round {}", r);
  }
  if (result.status == CaseStatus::kPassed && result.timing) {
    const int last = schedule.first_timing_call() + schedule.warmup_calls() +
                     static_cast<int>(result.timing->event_samples_ms.size()) - 1;
    if (captured.empty() || captured.back().call != last) {
      return fmt::format("no output came back for the last timed call ({})", schedule.label(last));
    }
  }
  return std::nullopt;
}

std::optional<std::string> floor_violation(const CaseResult& result, const DeviceInfo& device, const RunPlan& plan) {
  if (!result.timing || result.timing->samples_ms.empty()) return std::nullopt;
  const auto floor = physical_floor(result.work, device, plan.timing.flush_l2);
  if (!floor) return std::nullopt;
  return below_physical_floor(result.timing->stats.median, *floor, device);
}

}  // namespace

CaseResult CaseJudge::complete(SolutionRun run, const Case& test_case) {
  CaseResult result = std::move(run.result);
  if (result.status == CaseStatus::kSkipped) return result;
  const CallSchedule schedule(plan_);
  if (auto missing = missing_outputs(result, run.captured, schedule)) {
    result.status = CaseStatus::kRuntimeError;
    result.reason = fmt::format("the solution's side of the case is incomplete: {}", *missing);
    result.timing.reset();
    return result;
  }
  std::optional<Judgement> judgement;
  auto judge_call = [&](const CapturedOutput& captured) {
    if (!reference_) reference_ = std::make_unique<reference::GpuReference>();
    if (!judgement) judgement.emplace(test_case, *reference_, stream_.get());
    return judgement->judge(captured, schedule, plan_);
  };

  // The rounds, in order, up to the first that fails (here or on the solution's side).
  std::size_t next = 0;
  for (; next < run.captured.size() && schedule.is_round(run.captured[next].call); ++next) {
    const int call = run.captured[next].call;
    CorrectnessRound& round = result.correctness.at(static_cast<std::size_t>(call));
    round = judge_call(run.captured[next]);
    const bool last_judged = round.status != CaseStatus::kPassed || next + 1 == run.captured.size() ||
                             !schedule.is_round(run.captured[next + 1].call);
    if (plan_.dump_dir && last_judged) judgement->dump(*plan_.dump_dir, result.solution, round);
    if (round.status != CaseStatus::kPassed) break;
  }
  for (std::size_t r = 0; r < result.correctness.size(); ++r) {
    const CorrectnessRound& round = result.correctness[r];
    if (round.status == CaseStatus::kPassed) continue;
    result.correctness.resize(r + 1);
    result.status = round.status;
    result.reason = fmt::format("round {} (seed {}, {} positions): {}", r, round.seed, round.positions, round.reason);
    result.timing.reset();
    add_speed_of_light(test_case, result);
    return result;
  }

  if (result.status == CaseStatus::kPassed) {
    if (auto violation = floor_violation(result, device_, plan_)) {
      result.status = CaseStatus::kRewardHack;
      result.reason = *violation;
    }
  }
  // The sampled and the last timed calls, judged only for a case that has not failed already.
  for (; result.status == CaseStatus::kPassed && next < run.captured.size(); ++next) {
    const CapturedOutput& captured = run.captured[next];
    result.correctness.push_back(judge_call(captured));
    const CorrectnessRound& round = result.correctness.back();
    if (round.status != CaseStatus::kPassed) {
      result.status = round.status;
      result.reason = fmt::format("{} (seed {}): {}", schedule.label(captured.call), round.seed, round.reason);
    }
  }
  add_speed_of_light(test_case, result);
  return result;
}

void CaseJudge::add_speed_of_light(const Case& test_case, CaseResult& result) const {
  result.sol = speed_of_light(result.work, gpu_spec_);
  // Leaderboard figures only for a case that passed every judged call: a failure keeps its timing as evidence
  // (a replay faster than physics) but never gets a SOL fraction or a score, so no mean can include it.
  if (result.status != CaseStatus::kPassed || !result.timing || result.timing->samples_ms.empty()) return;
  const double latency_ms = result.timing->stats.median;
  result.sol_fraction = sol_fraction(result.sol->t_sol_ms, latency_ms);
  result.implausibly_fast = implausibly_fast(latency_ms, result.sol->t_sol_ms);
  if (baselines_ && !test_case.uuid.empty()) {
    result.baseline_ms = baselines_->latency_for(test_case.uuid);
    if (result.baseline_ms) result.score = leaderboard_score(latency_ms, result.sol->t_sol_ms, *result.baseline_ms);
  }
}

}  // namespace vlb
