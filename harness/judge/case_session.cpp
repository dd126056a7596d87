#include "harness/judge/case_session.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/judge/call_placements.hpp"
#include "harness/judge/call_preparation.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/judge/nvtx_range.hpp"
#include "harness/judge/outside_clock.hpp"
#include "harness/judge/reference_check.hpp"
#include "harness/sol/physical_floor.hpp"
#include "harness/timing/call_audit.hpp"
#include "harness/timing/clocks.hpp"
#include "harness/timing/kernel_breakdown.hpp"
#include "harness/timing/l2_flusher.hpp"
#include "harness/timing/stop_rule.hpp"

namespace vlb {
namespace {

using protocol::CallKind;

std::size_t free_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  VLB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

// Device memory a call may take for itself (allocator granularity) before it counts as allocating in run(); round 0
// may allocate once (library handles initialise lazily), later calls must not.
constexpr std::size_t kAllocationSlackBytes = std::size_t{8} << 20;
// What the worker's own CUDA context takes beside the case's buffers.
constexpr std::size_t kWorkerContextBytes = std::size_t{1} << 30;

double wall_seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The outcome a case ends with unless something earlier decided it.
struct Finding {
  CaseStatus status;
  std::string reason;
};

class CaseSession {
 public:
  CaseSession(const CaseContext& context, SolutionHost& host, const CatalogEntry& entry, const Case& test_case)
      : context_(context), host_(host), entry_(entry), case_(test_case), schedule_(context.plan) {}

  CaseResult run();

 private:
  std::optional<std::string> memory_shortfall(std::size_t workspace_bytes) const;
  bool set_up();
  void calibrate();
  bool run_rounds();
  void time_calls();
  std::optional<Finding> run_warmups(int& call_index);
  std::optional<std::string> outside_clock_check(TimingResult& timing) const;
  void audit_spans(const std::vector<std::uint64_t>& numbers, TimingResult& timing);

  // Runs one call on the host; `snapshot` copies its output aside the moment it is reported done.
  HostCall call(CallKind kind, int placement, bool snapshot);
  void flush_l2();
  void reference(const InputSettings& settings);
  void prepare(int call_index, const InputSettings& settings);
  void progress(int calls_done) const {
    if (context_.on_call) context_.on_call(calls_done);
  }
  void note_memory() {
    const std::size_t now = free_device_memory();
    if (free_at_start_ > now) peak_bytes_ = std::max(peak_bytes_, free_at_start_ - now);
  }
  void end(CaseStatus status, std::string reason) {
    result_.status = status;
    result_.reason = std::move(reason);
  }
  void add_speed_of_light();
  std::string call_failure(int call_index, const std::string& failure) const;

  const CaseContext& context_;
  SolutionHost& host_;
  const CatalogEntry& entry_;
  const Case& case_;
  CallSchedule schedule_;
  CudaStream stream_;
  CaseResult result_;
  std::size_t free_at_start_ = 0;
  std::size_t peak_bytes_ = 0;
  std::optional<ReferenceCheck> reference_;
  std::optional<CallPlacements> placements_;
  std::optional<CallPreparation> preparation_;
  std::optional<L2Flusher> flusher_;
  std::optional<OutsideClockCalibration> calibration_;
  std::uint64_t next_call_ = 1;  // the host's call numbers, counted over the whole session
  std::vector<std::uint64_t> timing_stop_observed_;  // per timed call, for the CUPTI audit
};

CaseResult CaseSession::run() {
  result_ = new_case_result(entry_.info.name, case_);
  try {
    if (set_up() && run_rounds() && context_.plan.time_cases) time_calls();
    host_.finish();
  } catch (const HostFailure& failure) {
    end(failure.status(), failure.what());
  }
  result_.peak_device_memory_bytes = static_cast<double>(peak_bytes_);
  add_speed_of_light();
  return result_;
}

std::optional<std::string> CaseSession::memory_shortfall(std::size_t workspace_bytes) const {
  std::size_t needed = CallPlacements::bytes_needed(case_.shape, workspace_bytes, schedule_.max_calls(),
                                                    context_.device.ordinal);
  if (host_.isolated()) needed += kWorkerContextBytes;
  const std::size_t available = free_device_memory();
  if (needed <= available) return std::nullopt;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return fmt::format("the case needs {:.2f} GiB of device memory and {:.2f} GiB are free", needed / kGiB,
                     available / kGiB);
}

// Steps 1 to 3; false when the case ends there (SKIPPED).
bool CaseSession::set_up() {
  free_at_start_ = free_device_memory();
  reference_.emplace(case_, stream_.get());
  if (auto shortfall = memory_shortfall(0)) {
    end(CaseStatus::kSkipped, *shortfall);
    return false;
  }
  placements_.emplace(case_.shape, schedule_.max_calls(), context_.device.ordinal);
  if (context_.plan.timing.flush_l2) flusher_.emplace(context_.device);
  host_.share(*placements_, 0);
  if (host_.isolated() && context_.plan.time_cases) calibrate();

  const auto load_began = std::chrono::steady_clock::now();
  const HostLoad load = host_.load(entry_, case_.shape);
  result_.load_s = wall_seconds_since(load_began);
  if (load.unsupported_reason) {
    end(CaseStatus::kSkipped, *load.unsupported_reason);
    return false;
  }
  if (auto shortfall = memory_shortfall(load.workspace_bytes)) {
    end(CaseStatus::kSkipped, *shortfall);
    return false;
  }
  placements_->add_workspace(load.workspace_bytes);
  host_.share(*placements_, CallPlacements::kWorkspaceBuffer);
  preparation_.emplace(case_, *placements_, stream_.get());
  note_memory();
  result_.status = CaseStatus::kPassed;
  return true;
}

void CaseSession::flush_l2() {
  const NvtxRange range(context_.plan.nvtx_ranges, "vlbench: L2 flush");
  if (flusher_) flusher_->flush(stream_.get(), static_cast<int>(next_call_));
  stream_.synchronize();
}

void CaseSession::reference(const InputSettings& settings) {
  const NvtxRange range(context_.plan.nvtx_ranges, "vlbench: reference");
  reference_->compute(settings);
}

void CaseSession::prepare(int call_index, const InputSettings& settings) {
  const NvtxRange range(context_.plan.nvtx_ranges, "vlbench: prepare");
  preparation_->prepare(call_index, settings);
}

HostCall CaseSession::call(CallKind kind, int placement, bool snapshot) {
  const std::function<void()> read_output = [&] {
    const NvtxRange range(context_.plan.nvtx_ranges, "vlbench: read-back");
    reference_->take_snapshot(placements_->output(placement), placements_->output_bytes());
  };
  return host_.call(next_call_++, kind, *placements_, placement, snapshot ? read_output : std::function<void()>());
}

// Step 2: calls of known work (one short kernel), preceded by the judge's own GPU work as a real call is, and read
// back the same way. What the outside clock adds to them is what it adds to any call.
void CaseSession::calibrate() {
  std::vector<double> outside, events;
  std::vector<std::uint64_t> numbers;
  for (int i = 0; i < kCalibrationCalls; ++i) {
    poison_bf16(placements_->output(0), tensor_spec(TensorId::kOutput, case_.shape).elements(), stream_.get());
    flush_l2();
    numbers.push_back(next_call_);
    const HostCall timed = call(CallKind::kCalibration, 0, /*snapshot=*/true);
    if (timed.failure) throw HostFailure(CaseStatus::kRuntimeError, "a calibration call failed: " + *timed.failure);
    outside.push_back(timed.outside_ms);
    events.push_back(timed.event_ms);
  }
  std::vector<double> spans;
  for (const CallActivity& activity : host_.activities(numbers)) spans.push_back(activity.span_ms());
  calibration_ = calibrate_outside_clock(outside, events, spans);
}

// Step 4; false when a round failed (the case ends with its status).
bool CaseSession::run_rounds() {
  for (int round = 0; round < schedule_.rounds(); ++round) {
    const InputSettings settings = schedule_.round_settings(round);
    reference(settings);  // first, on the judge's own copy: the worker sees nothing of this call yet
    prepare(round, settings);
    const std::size_t free_before = free_device_memory();
    const HostCall called = call(CallKind::kRound, round, /*snapshot=*/true);
    if (round == 0 && !called.failure) result_.first_call_ms = called.outside_ms;
    note_memory();
    CorrectnessRound judged;
    const std::size_t free_after = free_device_memory();
    const std::size_t allocated = free_before > free_after ? free_before - free_after : 0;
    if (called.failure) {
      judged.status = CaseStatus::kRuntimeError;
      judged.reason = call_failure(round, *called.failure);
    } else if (round > 0 && allocated >= kAllocationSlackBytes) {
      judged.status = CaseStatus::kRewardHack;
      judged.reason = fmt::format("the solution kept {:.1f} MiB of device memory allocated during run(); size it in "
                                  "workspace_bytes() instead", allocated / (1024.0 * 1024.0));
    } else if (auto violation = preparation_->inspect(round)) {
      judged.status = CaseStatus::kRewardHack;
      judged.reason = *violation;
    } else {
      judged = reference_->judge(settings, context_.plan.correctness.max_abs_error_cap);
    }
    judged.seed = settings.seed;
    judged.positions = std::string(position_pattern_name(settings.positions));
    const bool passed = judged.status == CaseStatus::kPassed;
    if (context_.plan.dump_dir && !called.failure && (!passed || round + 1 == schedule_.rounds())) {
      reference_->dump(*context_.plan.dump_dir, result_.solution, judged);
    }
    result_.correctness.push_back(judged);
    progress(round + 1);
    if (!passed) {
      end(judged.status, fmt::format("round {} (seed {}, {} positions): {}", round, judged.seed, judged.positions,
                                     judged.reason));
      return false;
    }
  }
  return true;
}

std::optional<Finding> CaseSession::run_warmups(int& call_index) {
  for (int warmup = 0; warmup < schedule_.warmup_calls(); ++warmup, ++call_index) {
    prepare(call_index, schedule_.timing_settings());
    flush_l2();
    const HostCall called = call(CallKind::kWarmup, call_index, /*snapshot=*/false);
    progress(call_index + 1);
    if (called.failure) {
      return Finding{CaseStatus::kRuntimeError, fmt::format("warm-up call {}: {}", warmup, call_failure(call_index, *called.failure))};
    }
    if (auto violation = preparation_->inspect(call_index)) {
      return Finding{CaseStatus::kRewardHack, fmt::format("warm-up call {}: {}", warmup, *violation)};
    }
  }
  return std::nullopt;
}

// The CUPTI spans of the timed calls and the audit of their kernels (outside the events window, a changed set).
void CaseSession::audit_spans(const std::vector<std::uint64_t>& numbers, TimingResult& timing) {
  if (!timing.cupti_available) return;
  const std::vector<CallActivity> activities = host_.activities(numbers);
  CallAudit audit;
  for (std::size_t i = 0; i < activities.size(); ++i) {
    timing.cupti_samples_ms.push_back(activities[i].span_ms());
    audit.add(AuditedCall{static_cast<int>(i), timing.event_samples_ms[i], timing_stop_observed_[i], activities[i]});
  }
  for (std::string& violation : audit.violations()) timing.violations.push_back(std::move(violation));
  timing.breakdown = kernel_breakdown(activities);
}

std::optional<std::string> CaseSession::outside_clock_check(TimingResult& timing) const {
  if (!calibration_ || timing.outside_samples_ms.empty() || timing.samples_ms.empty()) return std::nullopt;
  const double outside_median = compute_statistics(timing.outside_samples_ms).median;
  const std::size_t output_bytes = placements_->output_bytes();
  timing.outside_clock = OutsideClockRecord{calibration_->calls, calibration_->overhead_ms, calibration_->spread_ms,
                                            calibration_->cupti_overhead_ms,
                                            outside_clock_slack_ms(*calibration_, outside_median, output_bytes)};
  return outside_clock_violation(timing.stats.median, context_.plan.timing.timer, outside_median, *calibration_,
                                 output_bytes);
}

// Step 5.
void CaseSession::time_calls() {
  const TimingSettings& settings = context_.plan.timing;
  TimingResult timing;
  timing.cupti_available = host_.cupti_available();
  if (settings.timer == TimerKind::kCupti && !timing.cupti_available) {
    end(CaseStatus::kRuntimeError, "the CUPTI timer was requested but CUPTI cannot trace where the solution runs; use "
                                   "the CUDA-events timer instead");
    return;
  }
  int call_index = schedule_.first_timing_call();
  if (std::optional<Finding> finding = run_warmups(call_index)) {
    end(finding->status, "during timing: " + finding->reason);
    return;
  }
  SmClockProbe probe;
  const double clock_before_mhz = probe.measure_mhz(stream_.get());
  StopRule stop(settings);
  const auto began = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> numbers;
  std::optional<Finding> broke_rules, first_wrong;
  for (int timed = 0; call_index < schedule_.max_calls(); ++timed, ++call_index) {
    const InputSettings inputs = schedule_.timing_settings();
    reference(inputs);
    prepare(call_index, inputs);
    flush_l2();
    numbers.push_back(next_call_);
    const HostCall called = call(CallKind::kTimed, call_index, /*snapshot=*/true);
    progress(call_index + 1);
    if (called.failure) {
      broke_rules = Finding{CaseStatus::kRuntimeError,
                            fmt::format("timed call {}: {}", timed, call_failure(call_index, *called.failure))};
      numbers.pop_back();
      break;
    }
    timing.event_samples_ms.push_back(called.event_ms);
    timing.outside_samples_ms.push_back(called.outside_ms);
    timing_stop_observed_.push_back(called.stop_observed_ns);
    if (auto violation = preparation_->inspect(call_index)) {
      broke_rules = Finding{CaseStatus::kRewardHack, fmt::format("timed call {}: {}", timed, *violation)};
      break;
    }
    const CorrectnessRound judged = reference_->judge(inputs, context_.plan.correctness.max_abs_error_cap);
    timing.judged_calls.push_back({inputs.seed, judged.stats.matched_ratio, judged.stats.max_abs_error});
    if (judged.status != CaseStatus::kPassed && !first_wrong) {
      first_wrong = Finding{judged.status, fmt::format("timed call {} (seed {}): {}", timed, inputs.seed, judged.reason)};
    }
    const bool cupti_each_call = settings.timer == TimerKind::kCupti && settings.adaptive.has_value();
    stop.add(cupti_each_call ? host_.activities({numbers.back()}).at(0).span_ms() : called.event_ms);
    if (auto reason = stop.reason(wall_seconds_since(began))) {
      timing.stop_reason = std::move(*reason);
      break;
    }
  }
  if (timing.stop_reason.empty()) timing.stop_reason = broke_rules ? "violation" : "max_samples";
  timing.clocks = make_clock_telemetry(clock_before_mhz, probe.measure_mhz(stream_.get()), context_.device);
  audit_spans(numbers, timing);
  timing.samples_ms = settings.timer == TimerKind::kCupti ? timing.cupti_samples_ms : timing.event_samples_ms;
  timing.stats = compute_statistics(timing.samples_ms);
  if (auto forged = outside_clock_check(timing)) timing.violations.push_back(*forged);
  if (broke_rules && broke_rules->status == CaseStatus::kRewardHack) timing.violations.insert(timing.violations.begin(), broke_rules->reason);
  note_memory();

  const bool timed_any = !timing.samples_ms.empty();
  result_.timing = std::move(timing);
  const TimingResult& kept = *result_.timing;
  if (broke_rules && broke_rules->status != CaseStatus::kRewardHack) {
    end(broke_rules->status, "during timing: " + broke_rules->reason);
    if (!timed_any) result_.timing.reset();
    return;
  }
  if (!kept.violations.empty()) {
    end(CaseStatus::kRewardHack, "during timing: " + kept.violations.front());
    if (!timed_any) result_.timing.reset();
    return;
  }
  if (const auto floor = physical_floor(result_.work, context_.device, settings.flush_l2)) {
    if (auto violation = below_physical_floor(kept.stats.median, *floor, context_.device)) {
      end(CaseStatus::kRewardHack, *violation);
      return;
    }
  }
  if (first_wrong) end(first_wrong->status, first_wrong->reason);
}

// A call that failed on the device: where its memory shows a stray write, say so (an access past a buffer's guard
// zones faults on the unmapped pages around it, which is how a far write ends).
std::string CaseSession::call_failure(int call_index, const std::string& failure) const {
  if (failure.find("illegal memory access") == std::string::npos && failure.find("IllegalAddress") == std::string::npos) {
    return failure;
  }
  const std::optional<std::string> damage = preparation_->inspect(call_index);
  return fmt::format("{} (every buffer it was given lies between unmapped pages, so an access outside them faults; {})",
                     failure, damage ? *damage : "no guard zone shows damage: the access fell past them all");
}

// Step 6. Leaderboard figures only for a case that passed every judged call: a failure keeps its timing as evidence
// (a replay faster than physics) but never gets a SOL fraction or a score, so no mean can include it.
void CaseSession::add_speed_of_light() {
  if (result_.status == CaseStatus::kSkipped) return;
  result_.sol = speed_of_light(result_.work, context_.gpu_spec);
  if (result_.status != CaseStatus::kPassed || !result_.timing || result_.timing->samples_ms.empty()) return;
  const double latency_ms = result_.timing->stats.median;
  result_.sol_fraction = sol_fraction(result_.sol->t_sol_ms, latency_ms);
  result_.implausibly_fast = implausibly_fast(latency_ms, result_.sol->t_sol_ms);
  if (context_.baselines && !case_.uuid.empty()) {
    result_.baseline_ms = context_.baselines->latency_for(case_.uuid);
    if (result_.baseline_ms) {
      result_.score = leaderboard_score(latency_ms, result_.sol->t_sol_ms, *result_.baseline_ms);
    }
  }
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

CaseResult run_case(const CaseContext& context, SolutionHost& host, const CatalogEntry& solution,
                    const Case& test_case) {
  validate_timing_settings(context.plan.timing);
  return CaseSession(context, host, solution, test_case).run();
}

}  // namespace vlb
