// REWARD_HACK detection with real kernels: unjoined side streams and kernel sets that change between calls.
#include <catch2/catch.hpp>

#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "harness/timing/call_timer.hpp"
#include "harness/timing/cupti_span.hpp"
#include "harness/timing/measurement.hpp"
#include "harness/timing/statistics.hpp"
#include "support/gpu_test.hpp"
#include "support/skip.hpp"
#include "support_timed_loop.hpp"
#include "support_timing_kernels.hpp"

namespace {

using vlb::testing::test_device;
using vlb::testing::TestStream;

vlb::TimingSettings short_run(int warmup, int timed) {
  vlb::TimingSettings settings;
  settings.warmup_iterations = warmup;
  settings.timed_iterations = timed;
  return settings;
}

class TestEvent {
 public:
  TestEvent() { VLB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~TestEvent() { (void)cudaEventDestroy(event_); }
  TestEvent(const TestEvent&) = delete;
  TestEvent& operator=(const TestEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

bool any_violation_contains(const vlb::TimingResult& result, const std::string& text) {
  for (const std::string& violation : result.violations) {
    if (violation.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a kernel left running on a side stream that the call does not join is a violation", "[timing][gpu]") {
  TestStream stream;
  TestStream side;
  const auto call = [&](cudaStream_t s, int) {
    vlb::testing::launch_spin_kernel(side.get(), 300);  // forked without a dependency and never joined
    vlb::testing::launch_spin_kernel(s, 20);
  };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, short_run(3, 10), test_device(), stream.get());
  if (!result.cupti_available) {
    CHECK(result.violations.empty());
    VLB_SKIP("CUPTI is unavailable here: side-stream detection is not checked");
  }
  REQUIRE_FALSE(result.violations.empty());
  CHECK(any_violation_contains(result, "REWARD_HACK"));
  CHECK(any_violation_contains(result, "outside its CUDA-events window"));
  CHECK(result.stats.median < 0.2);                 // events saw only the short kernel
  CHECK(result.cupti_samples_ms.front() > 0.25);    // CUPTI saw the side kernel too
}

TEST_CASE("a side stream forked from and joined back to the harness stream is no violation", "[timing][gpu]") {
  TestStream stream;
  TestStream side;
  TestEvent fork;
  TestEvent join;
  const auto call = [&](cudaStream_t s, int) {
    VLB_CUDA_CHECK(cudaEventRecord(fork.get(), s));
    VLB_CUDA_CHECK(cudaStreamWaitEvent(side.get(), fork.get(), 0));
    vlb::testing::launch_spin_kernel(side.get(), 300);
    vlb::testing::launch_spin_kernel(s, 20);
    VLB_CUDA_CHECK(cudaEventRecord(join.get(), side.get()));
    VLB_CUDA_CHECK(cudaStreamWaitEvent(s, join.get(), 0));
  };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, short_run(3, 10), test_device(), stream.get());
  CHECK(result.violations.empty());
  // The events window holds the side kernel (joining costs a little on top).
  CHECK(result.stats.min > 0.3);
  if (result.cupti_available) CHECK(result.cupti_samples_ms.front() == Approx(0.3).epsilon(0.05));
}

TEST_CASE("a call whose kernel set changes between timed calls is a violation", "[timing][gpu]") {
  TestStream stream;
  constexpr int kWarmup = 4;
  constexpr int kFirstChangedIteration = kWarmup + 5;
  const auto call = [&](cudaStream_t s, int iteration) {
    vlb::testing::launch_spin_kernel(s, 30);
    if (iteration < kFirstChangedIteration) vlb::testing::launch_other_spin_kernel(s, 30);
  };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, short_run(kWarmup, 12), test_device(), stream.get());
  if (!result.cupti_available) VLB_SKIP("CUPTI is unavailable here: the kernel-set audit is not checked");
  REQUIRE(result.violations.size() == 1);
  CHECK(any_violation_contains(result, "REWARD_HACK"));
  CHECK(any_violation_contains(result, "7 of 12"));
  CHECK(any_violation_contains(result, "iteration 9"));
  CHECK(any_violation_contains(result, "other_spin_kernel"));
}

TEST_CASE("an unchanging multi-kernel call is no violation", "[timing][gpu]") {
  TestStream stream;
  const auto call = [&](cudaStream_t s, int) {
    vlb::testing::launch_spin_kernel(s, 30);
    vlb::testing::launch_other_spin_kernel(s, 30);
    vlb::testing::launch_spin_kernel(s, 30);
  };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, short_run(4, 12), test_device(), stream.get());
  CHECK(result.violations.empty());
  CHECK(result.stats.min > 0.09);
  if (result.cupti_available) {
    const vlb::Statistics spans = vlb::compute_statistics(result.cupti_samples_ms);
    INFO("CUPTI median " << spans.median << " ms, events median " << result.stats.median << " ms");
    CHECK(spans.min > 0.09);
    CHECK(spans.median <= result.stats.median);
  }
}

TEST_CASE("without CUPTI a call timer still times with events", "[timing][gpu]") {
  TestStream stream;
  // The tests' own timer holds the process's one CUPTI subscriber: a second timer gets none.
  const vlb::TimingResult first = vlb::testing::time_calls_here(
      [](cudaStream_t s, int) { vlb::testing::launch_spin_kernel(s, 50); }, nullptr, short_run(0, 1), test_device(),
      stream.get());
  if (!first.cupti_available) VLB_SKIP("CUPTI is unavailable here: a second subscriber cannot be refused");
  vlb::CallTimer second;
  CHECK_FALSE(second.cupti_available());
  CHECK_FALSE(second.cupti_unavailable_reason().empty());
  second.time(stream.get(), true, [&] { vlb::testing::launch_spin_kernel(stream.get(), 50); });  // warm
  const vlb::CallTiming timing = second.time(stream.get(), true, [&] { vlb::testing::launch_spin_kernel(stream.get(), 50); });
  CHECK(timing.event_ms == Approx(0.05).epsilon(0.1));
  CHECK(timing.activity_index == -1);
  CHECK(timing.stop_observed_ns == 0);
  CHECK(second.activities({0}).empty());
}
