// The timing pieces on real kernels: accuracy against a kernel of known duration, the L2 flush, the adaptive stop,
// clocks.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <numeric>
#include <random>
#include <vector>

#include "harness/core/device_buffer.hpp"
#include "harness/core/errors.hpp"
#include "harness/timing/measurement.hpp"
#include "support/gpu_test.hpp"
#include "support/skip.hpp"
#include "support_timed_loop.hpp"
#include "support_timing_kernels.hpp"

namespace {

using vlb::testing::test_device;
using vlb::testing::TestStream;

constexpr double kSpinUs = 200.0;
constexpr double kSpinMs = kSpinUs / 1000.0;

vlb::TimingSettings short_run(int warmup, int timed) {
  vlb::TimingSettings settings;
  settings.warmup_iterations = warmup;
  settings.timed_iterations = timed;
  return settings;
}

// Seeded random words (never zeros) on the device, and their sum on the host.
struct ReadBuffer {
  vlb::DeviceBuffer words;
  std::size_t count = 0;
  unsigned long long expected_sum = 0;
};

ReadBuffer make_read_buffer(std::size_t bytes) {
  ReadBuffer buffer;
  buffer.count = bytes / 16 * 4;  // whole uint4 vectors
  std::mt19937 generator(Catch::rngSeed() + 977);
  std::uniform_int_distribution<std::uint32_t> value(1, 1000);
  std::vector<std::uint32_t> host(buffer.count);
  for (std::uint32_t& word : host) word = value(generator);
  buffer.expected_sum = std::accumulate(host.begin(), host.end(), 0ull);
  buffer.words = vlb::DeviceBuffer(buffer.count * sizeof(std::uint32_t));
  VLB_CUDA_CHECK(cudaMemcpy(buffer.words.data(), host.data(), buffer.words.bytes(), cudaMemcpyHostToDevice));
  // A pageable cudaMemcpy may return before its DMA lands, and the tests' non-blocking streams do not wait for it.
  VLB_CUDA_CHECK(cudaDeviceSynchronize());
  return buffer;
}

}  // namespace

TEST_CASE("events time a kernel of known duration within 5%, preparation excluded", "[timing][gpu]") {
  TestStream stream;
  int prepared = 0;
  int called = 0;
  const auto prepare = [&](cudaStream_t s, int) {
    ++prepared;
    vlb::testing::launch_spin_kernel(s, 3 * kSpinUs);  // untimed: must not show in the samples
  };
  const auto call = [&](cudaStream_t s, int) {
    ++called;
    vlb::testing::launch_spin_kernel(s, kSpinUs);
  };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, prepare, short_run(5, 30), test_device(), stream.get());
  CHECK(prepared == 35);
  CHECK(called == 35);
  CHECK(result.stop_reason == "iterations");
  REQUIRE(result.samples_ms.size() == 30);
  CHECK(result.event_samples_ms == result.samples_ms);
  CHECK(result.stats.count == 30);
  CHECK(result.stats.median == Approx(kSpinMs).epsilon(0.05));
  CHECK(result.stats.min > 0.95 * kSpinMs);
  if (!result.cupti_available) {
    CHECK(result.cupti_samples_ms.empty());
    VLB_SKIP("CUPTI is unavailable here: the CUPTI spans of the calls are not checked");
  }
  REQUIRE(result.cupti_samples_ms.size() == 30);
  for (const double span : result.cupti_samples_ms) CHECK(span == Approx(kSpinMs).epsilon(0.05));
  CHECK(result.violations.empty());
}

TEST_CASE("the CUPTI timer spans every kernel of the call and nothing else", "[timing][gpu]") {
  TestStream stream;
  vlb::TimingSettings settings = short_run(3, 20);
  settings.timer = vlb::TimerKind::kCupti;
  const auto call = [](cudaStream_t s, int) {
    vlb::testing::launch_spin_kernel(s, kSpinUs / 2);
    vlb::testing::launch_other_spin_kernel(s, kSpinUs / 2);
  };
  vlb::TimingResult result;
  try {
    result = vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get());
  } catch (const vlb::SystemError& error) {
    CHECK_THAT(error.what(), Catch::Contains("CUPTI"));
    VLB_SKIP(std::string("CUPTI is unavailable here: ") + error.what());
  }
  REQUIRE(result.cupti_available);
  CHECK(result.samples_ms == result.cupti_samples_ms);
  CHECK(result.stats.median == Approx(kSpinMs).epsilon(0.05));
  // The events window holds the CUPTI span.
  for (std::size_t i = 0; i < result.samples_ms.size(); ++i) CHECK(result.cupti_samples_ms[i] <= result.event_samples_ms[i] + 0.002);
  CHECK(result.violations.empty());
}

TEST_CASE("the L2 flush makes a read of half the L2 measurably slower", "[timing][gpu]") {
  TestStream stream;
  const vlb::DeviceInfo& device = test_device();
  const ReadBuffer buffer = make_read_buffer(device.l2_bytes / 2);
  const vlb::DeviceBuffer sum(sizeof(unsigned long long));
  // The preparation zeroes the sum and queues a spin ahead of the timed window, so that both runs time the read
  // and not the host's launch latency.
  const auto prepare = [&](cudaStream_t s, int) {
    VLB_CUDA_CHECK(cudaMemsetAsync(sum.data(), 0, sum.bytes(), s));
    vlb::testing::launch_spin_kernel(s, 50);
  };
  const auto call = [&](cudaStream_t s, int) {
    vlb::testing::launch_read_sum_kernel(s, buffer.words.as<std::uint32_t>(), buffer.count, device.sm_count,
                                         sum.as<unsigned long long>());
  };
  vlb::TimingSettings settings = short_run(10, 50);
  settings.flush_l2 = false;
  const vlb::TimingResult warm_l2 = vlb::testing::time_calls_here(call, prepare, settings, device, stream.get());
  settings.flush_l2 = true;
  const vlb::TimingResult flushed = vlb::testing::time_calls_here(call, prepare, settings, device, stream.get());

  unsigned long long device_sum = 0;
  VLB_CUDA_CHECK(cudaMemcpy(&device_sum, sum.data(), sizeof(device_sum), cudaMemcpyDeviceToHost));
  CHECK(device_sum == buffer.expected_sum);  // the read really covered the buffer
  INFO("L2 " << device.l2_bytes << " B; median unflushed " << warm_l2.stats.median << " ms, flushed "
             << flushed.stats.median << " ms");
  CHECK(flushed.stats.median > 1.2 * warm_l2.stats.median);
  if (flushed.cupti_available) CHECK(flushed.violations.empty());
}

TEST_CASE("the adaptive mode stops by noise, by sample count or by timeout", "[timing][gpu]") {
  TestStream stream;
  const auto call = [](cudaStream_t s, int) { vlb::testing::launch_spin_kernel(s, kSpinUs); };
  vlb::TimingSettings settings = short_run(2, 1);

  SECTION("steady samples stop once min_samples, min_time and the noise target are met") {
    settings.adaptive = vlb::AdaptiveStop{20, 0.02, 0.05, 30.0, 100000};
    const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get());
    CHECK(result.stop_reason == "min_samples+min_time+noise");
    CHECK(result.samples_ms.size() >= 20);
    const double total_ms = std::accumulate(result.samples_ms.begin(), result.samples_ms.end(), 0.0);
    CHECK(total_ms >= 20.0);
    CHECK(total_ms < 20.0 + 2 * result.stats.max);  // it stopped as soon as min_time was reached
    CHECK(result.stats.relative_noise() <= 0.05);
  }
  SECTION("the adaptive stop works on CUPTI samples too") {
    settings.adaptive = vlb::AdaptiveStop{20, 0.01, 0.05, 30.0, 100000};
    settings.timer = vlb::TimerKind::kCupti;
    vlb::TimingResult result;
    try {
      result = vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get());
    } catch (const vlb::SystemError& error) {
      VLB_SKIP(std::string("CUPTI is unavailable here: ") + error.what());
    }
    CHECK(result.stop_reason == "min_samples+min_time+noise");
    CHECK(result.samples_ms == result.cupti_samples_ms);
    CHECK(result.samples_ms.size() >= 20);
    CHECK(result.stats.median == Approx(kSpinMs).epsilon(0.05));
  }
  SECTION("an unreachable noise target stops at max_samples") {
    settings.adaptive = vlb::AdaptiveStop{5, 0.0, 1e-12, 60.0, 37};
    const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get());
    CHECK(result.stop_reason == "max_samples");
    CHECK(result.samples_ms.size() == 37);
  }
  SECTION("an unreachable noise target stops at the timeout") {
    settings.adaptive = vlb::AdaptiveStop{5, 0.0, 1e-12, 0.4, 1000000};
    const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get());
    CHECK(result.stop_reason == "timeout");
    CHECK(result.samples_ms.size() >= 5);
    CHECK(result.samples_ms.size() < 1000000);
  }
}

TEST_CASE("clock probes read a plausible SM clock around the measurement", "[timing][gpu]") {
  TestStream stream;
  const auto call = [](cudaStream_t s, int) { vlb::testing::launch_spin_kernel(s, kSpinUs); };
  const vlb::TimingResult result = vlb::testing::time_calls_here(call, nullptr, short_run(5, 10), test_device(), stream.get());
  const double max_mhz = test_device().max_sm_clock_khz / 1000.0;
  CHECK(result.clocks.max_sm_clock_mhz == Approx(max_mhz));
  for (const double probe : {result.clocks.sm_clock_mhz_before, result.clocks.sm_clock_mhz_after}) {
    CHECK(probe > 0.2 * max_mhz);
    CHECK(probe < 1.05 * max_mhz);
  }
  const bool expected_throttled = result.clocks.sm_clock_mhz_before < 0.9 * max_mhz ||
                                  result.clocks.sm_clock_mhz_after < 0.9 * max_mhz;
  CHECK(result.clocks.throttled == expected_throttled);
}

TEST_CASE("bad timing settings are usage errors", "[timing][gpu]") {
  TestStream stream;
  const auto call = [](cudaStream_t s, int) { vlb::testing::launch_spin_kernel(s, 10); };
  CHECK_THROWS_AS(vlb::testing::time_calls_here(call, nullptr, short_run(-1, 10), test_device(), stream.get()), vlb::UsageError);
  CHECK_THROWS_AS(vlb::testing::time_calls_here(call, nullptr, short_run(1, 0), test_device(), stream.get()), vlb::UsageError);
  vlb::TimingSettings settings = short_run(1, 10);
  settings.adaptive = vlb::AdaptiveStop{10, 0.1, 0.01, 1.0, 5};
  CHECK_THROWS_AS(vlb::testing::time_calls_here(call, nullptr, settings, test_device(), stream.get()), vlb::UsageError);
}
