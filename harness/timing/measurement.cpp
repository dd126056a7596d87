#include "harness/timing/measurement.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/timing/call_audit.hpp"
#include "harness/timing/clocks.hpp"
#include "harness/timing/cupti_span.hpp"
#include "harness/timing/l2_flusher.hpp"

namespace vlb {
namespace {

class EventPair {
 public:
  EventPair() {
    VLB_CUDA_CHECK(cudaEventCreate(&start_));
    VLB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Running mean and variance (Welford), for the adaptive stop without re-sorting every sample.
class RunningNoise {
 public:
  void add(double value) {
    ++count_;
    const double delta = value - mean_;
    mean_ += delta / static_cast<double>(count_);
    sum_squares_ += delta * (value - mean_);
  }
  double relative_noise() const {
    if (count_ < 2 || mean_ <= 0) return 0.0;
    return std::sqrt(sum_squares_ / static_cast<double>(count_ - 1)) / mean_;
  }

 private:
  long long count_ = 0;
  double mean_ = 0, sum_squares_ = 0;
};

void validate(const TimingSettings& settings) {
  if (settings.warmup_iterations < 0) throw UsageError("timing: warm-up iterations must be >= 0");
  if (!settings.adaptive && settings.timed_iterations < 1) throw UsageError("timing: timed iterations must be >= 1");
  if (settings.adaptive) {
    const AdaptiveStop& stop = *settings.adaptive;
    if (stop.min_samples < 1 || stop.max_samples < stop.min_samples) {
      throw UsageError(fmt::format("timing: adaptive stop needs 1 <= min_samples ({}) <= max_samples ({})",
                                   stop.min_samples, stop.max_samples));
    }
    if (stop.min_time_s < 0 || stop.timeout_s <= 0 || stop.target_relative_noise <= 0) {
      throw UsageError("timing: adaptive stop needs min_time >= 0, timeout > 0 and target relative noise > 0");
    }
  }
}

struct IterationTiming {
  double event_ms = 0;
  int cupti_call = -1;                 // the recorder's index of the call, where CUPTI records
  std::uint64_t stop_observed_ns = 0;  // CUPTI clock
};

class IterationRunner {
 public:
  IterationRunner(const MeasuredCall& call, const PrepareCall& prepare, const TimingSettings& settings,
                  const DeviceInfo& device, cudaStream_t stream, CuptiSpanRecorder* recorder)
      : call_(call), prepare_(prepare), stream_(stream), recorder_(recorder) {
    if (settings.flush_l2) flusher_.emplace(device);
  }

  // prepare -> flush -> [start event, call, stop event] -> wait for the stop event and then for the whole device,
  // so that work the call left on other streams neither escapes the audit nor overlaps the next iteration.
  IterationTiming run(int iteration, bool timed) {
    if (prepare_) prepare_(stream_, iteration);
    if (flusher_) flusher_->flush(stream_, iteration);
    VLB_CUDA_CHECK(cudaEventRecord(events_.start(), stream_));
    const bool audit = timed && recorder_ != nullptr;
    const int call_index = audit ? recorder_->open_call() : -1;
    call_(stream_, iteration);
    if (audit) recorder_->close_call();
    VLB_CUDA_CHECK(cudaGetLastError());
    VLB_CUDA_CHECK(cudaEventRecord(events_.stop(), stream_));
    VLB_CUDA_CHECK(cudaEventSynchronize(events_.stop()));
    const std::uint64_t stop_observed_ns = audit ? recorder_->now_ns() : 0;
    VLB_CUDA_CHECK(cudaDeviceSynchronize());

    IterationTiming timing;
    float event_ms = 0;
    VLB_CUDA_CHECK(cudaEventElapsedTime(&event_ms, events_.start(), events_.stop()));
    timing.event_ms = event_ms;
    timing.cupti_call = call_index;
    timing.stop_observed_ns = stop_observed_ns;
    return timing;
  }

 private:
  const MeasuredCall& call_;
  const PrepareCall& prepare_;
  cudaStream_t stream_;
  CuptiSpanRecorder* recorder_;
  EventPair events_;
  std::optional<L2Flusher> flusher_;
};

// Which criterion ends the timed loop after `samples` samples, or nothing to go on.
std::optional<std::string> stop_reason(const TimingSettings& settings, int samples, double timed_total_s,
                                       const RunningNoise& noise, double wall_s) {
  if (!settings.adaptive) {
    return samples >= settings.timed_iterations ? std::optional<std::string>("iterations") : std::nullopt;
  }
  const AdaptiveStop& stop = *settings.adaptive;
  if (samples >= stop.min_samples && timed_total_s >= stop.min_time_s &&
      noise.relative_noise() <= stop.target_relative_noise) {
    return "min_samples+min_time+noise";
  }
  if (samples >= stop.max_samples) return "max_samples";
  if (wall_s >= stop.timeout_s) return "timeout";
  return std::nullopt;
}

std::unique_ptr<CuptiSpanRecorder> start_cupti(const TimingSettings& settings, TimingResult& result) {
  std::string why_unavailable;
  auto recorder = CuptiSpanRecorder::start(why_unavailable);
  result.cupti_available = recorder != nullptr;
  if (!recorder && settings.timer == TimerKind::kCupti) {
    throw SystemError("the CUPTI timer was requested but CUPTI cannot trace on this machine: " + why_unavailable +
                      "; use the CUDA-events timer instead");
  }
  return recorder;
}

// A timed call whose CUPTI activity is read later: CUPTI records are collected once after the loop, since a flush per
// iteration slows the launches that follow it; only an adaptive stop on CUPTI samples reads them at once.
struct PendingAudit {
  AuditedCall call;
  int cupti_call = -1;
};

void read_activity(CuptiSpanRecorder& recorder, PendingAudit& pending) {
  recorder.flush();
  pending.call.activity = recorder.call_activity(pending.cupti_call);
}

// CUPTI spans and REWARD_HACK findings of every timed call.
void audit_calls(CuptiSpanRecorder& recorder, std::vector<PendingAudit>& audits, TimingResult& result) {
  recorder.flush();
  CallAudit audit;
  for (PendingAudit& pending : audits) {
    pending.call.activity = recorder.call_activity(pending.cupti_call);
    result.cupti_samples_ms.push_back(pending.call.activity.span_ms());
    audit.add(pending.call);
  }
  result.violations = audit.violations();
}

}  // namespace

TimingResult measure(const MeasuredCall& call, const PrepareCall& prepare, const TimingSettings& settings,
                     const DeviceInfo& device, cudaStream_t stream, const InspectCall& inspect) {
  validate(settings);
  if (!call) throw UsageError("timing: no call to measure");
  const auto began = std::chrono::steady_clock::now();
  const auto wall_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(); };

  TimingResult result;
  const std::unique_ptr<CuptiSpanRecorder> recorder = start_cupti(settings, result);
  IterationRunner runner(call, prepare, settings, device, stream, recorder.get());
  SmClockProbe probe;

  int iteration = 0;
  // A violation found after a call ends the measurement: the samples so far are kept, the finding reported.
  auto inspect_after = [&](int index, bool timed) {
    if (!inspect) return false;
    std::optional<std::string> violation = inspect(stream, index, timed);
    if (!violation) return false;
    result.violations.push_back(std::move(*violation));
    result.stop_reason = "violation";
    return true;
  };
  for (; iteration < settings.warmup_iterations; ++iteration) {
    runner.run(iteration, /*timed=*/false);
    if (inspect_after(iteration, /*timed=*/false)) return result;
  }
  const double clock_before_mhz = probe.measure_mhz(stream);

  const bool cupti_per_iteration = settings.timer == TimerKind::kCupti && settings.adaptive.has_value();
  std::vector<PendingAudit> audits;
  RunningNoise noise;
  double timed_total_s = 0;
  for (;; ++iteration) {
    const IterationTiming timing = runner.run(iteration, /*timed=*/true);
    result.event_samples_ms.push_back(timing.event_ms);
    if (recorder) {
      audits.push_back({AuditedCall{iteration, timing.event_ms, timing.stop_observed_ns, {}}, timing.cupti_call});
      if (cupti_per_iteration) read_activity(*recorder, audits.back());
    }
    if (inspect_after(iteration, /*timed=*/true)) break;
    const double sample_ms = cupti_per_iteration ? audits.back().call.activity.span_ms() : timing.event_ms;
    noise.add(sample_ms);
    timed_total_s += sample_ms * 1e-3;
    const int samples = static_cast<int>(result.event_samples_ms.size());
    if (auto reason = stop_reason(settings, samples, timed_total_s, noise, wall_s())) {
      result.stop_reason = std::move(*reason);
      break;
    }
  }
  const double clock_after_mhz = probe.measure_mhz(stream);

  if (recorder) {
    std::vector<std::string> found_by_inspection = std::move(result.violations);
    audit_calls(*recorder, audits, result);
    result.violations.insert(result.violations.begin(), found_by_inspection.begin(), found_by_inspection.end());
  }
  result.samples_ms = settings.timer == TimerKind::kCupti ? result.cupti_samples_ms : result.event_samples_ms;
  result.clocks = make_clock_telemetry(clock_before_mhz, clock_after_mhz, device);
  result.stats = compute_statistics(result.samples_ms);
  return result;
}

}  // namespace vlb
