#include "support_timed_loop.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/timing/call_audit.hpp"
#include "harness/timing/call_timer.hpp"
#include "harness/timing/clocks.hpp"
#include "harness/timing/l2_flusher.hpp"
#include "harness/timing/statistics.hpp"
#include "harness/timing/stop_rule.hpp"

namespace vlb::testing {

TimingResult time_calls_here(const TestCall& call, const TestCall& prepare, const TimingSettings& settings,
                             const DeviceInfo& device, cudaStream_t stream) {
  validate_timing_settings(settings);
  static CallTimer timer;  // one CUPTI subscriber per process
  TimingResult result;
  result.cupti_available = timer.cupti_available();
  if (settings.timer == TimerKind::kCupti && !result.cupti_available) {
    throw SystemError("the CUPTI timer was requested but CUPTI cannot trace here: " + timer.cupti_unavailable_reason() +
                      "; use the CUDA-events timer instead");
  }
  std::optional<L2Flusher> flusher;
  if (settings.flush_l2) flusher.emplace(device);
  int iteration = 0;
  auto run = [&](bool timed) {
    if (prepare) prepare(stream, iteration);
    if (flusher) flusher->flush(stream, iteration);
    VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
    const int here = iteration++;
    return timer.time(stream, timed, [&] { call(stream, here); });
  };
  for (int i = 0; i < settings.warmup_iterations; ++i) run(false);
  SmClockProbe probe;
  const double before_mhz = probe.measure_mhz(stream);
  StopRule stop(settings);
  const auto began = std::chrono::steady_clock::now();
  std::vector<CallTiming> timed;
  const bool cupti_each_call = settings.timer == TimerKind::kCupti && settings.adaptive.has_value();
  for (;;) {
    timed.push_back(run(true));
    result.event_samples_ms.push_back(timed.back().event_ms);
    stop.add(cupti_each_call ? timer.activities({timed.back().activity_index}).at(0).span_ms() : timed.back().event_ms);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (auto reason = stop.reason(wall_s)) {
      result.stop_reason = *reason;
      break;
    }
  }
  result.clocks = make_clock_telemetry(before_mhz, probe.measure_mhz(stream), device);
  if (result.cupti_available) {
    std::vector<int> indices;
    for (const CallTiming& each : timed) indices.push_back(each.activity_index);
    const std::vector<CallActivity> activities = timer.activities(indices);
    CallAudit audit;
    for (std::size_t i = 0; i < activities.size(); ++i) {
      result.cupti_samples_ms.push_back(activities[i].span_ms());
      audit.add({settings.warmup_iterations + static_cast<int>(i), timed[i].event_ms, timed[i].stop_observed_ns,
                 activities[i]});
    }
    result.violations = audit.violations();
  }
  result.samples_ms = settings.timer == TimerKind::kCupti ? result.cupti_samples_ms : result.event_samples_ms;
  result.stats = compute_statistics(result.samples_ms);
  return result;
}

}  // namespace vlb::testing
