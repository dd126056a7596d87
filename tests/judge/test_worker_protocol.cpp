// The judge's side of the worker protocol, against a stand-in worker process (fake_worker.cpp) that misbehaves as
// told: the judge keeps its own clock of every call, takes no report on its word, and names each breach.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "harness/judge/outside_clock.hpp"
#include "harness/judge/worker_host.hpp"
#include "harness/timing/statistics.hpp"

namespace {

using vlb::CaseStatus;
using vlb::HostFailure;

std::filesystem::path fake_worker() { return std::filesystem::path(VLBENCH_BINARY_DIR) / "tests" / "vlbench_fake_worker"; }

// The stand-in, told how to behave (the variables reach it through the environment it inherits).
std::unique_ptr<vlb::WorkerHost> start(const std::string& behaviour, double call_ms = 5, double timeout_s = 20) {
  setenv("FAKE_WORKER_BEHAVIOUR", behaviour.c_str(), 1);
  setenv("FAKE_WORKER_CALL_MS", std::to_string(call_ms).c_str(), 1);
  return std::make_unique<vlb::WorkerHost>(fake_worker(), 0, timeout_s);
}

vlb::protocol::CallMessage call_number(std::uint64_t call) {
  vlb::protocol::CallMessage message;
  message.call = call;
  message.kind = vlb::protocol::CallKind::kTimed;
  return message;
}

// The failure a host call ends with (REQUIRE that it fails).
HostFailure failure_of(vlb::WorkerHost& host, std::uint64_t call) {
  try {
    host.run_call(call_number(call), nullptr);
  } catch (const HostFailure& failure) {
    return failure;
  }
  FAIL("the call was accepted");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("an honest worker's calls: its figures, the judge's clock around them, a clean end", "[judge][protocol]") {
  auto host = start("honest", 5);
  host->share_buffers({}, {});
  bool read_output = false;
  for (std::uint64_t call = 1; call <= 5; ++call) {
    const vlb::HostCall result = host->run_call(call_number(call), [&] { read_output = true; });
    CHECK(read_output);
    CHECK(result.event_ms == Approx(5));
    CHECK_FALSE(result.failure.has_value());
    CHECK(result.outside_ms >= 5.0);  // the judge's clock holds the call
    CHECK(result.outside_ms < 50.0);
  }
  CHECK_NOTHROW(host->finish());
}

TEST_CASE("a worker that forges its times is out of reach of the judge's own clock", "[judge][protocol]") {
  // The calibration: honest calls of known length. Then a worker that reports a tenth of what its calls take. The
  // calls are long against what a loaded CI machine adds to a sleep (milliseconds).
  auto honest = start("honest", 100);
  std::vector<double> outside, events;
  for (std::uint64_t call = 1; call <= 8; ++call) {
    const vlb::HostCall result = honest->run_call(call_number(call), nullptr);
    outside.push_back(result.outside_ms);
    events.push_back(result.event_ms);
  }
  const vlb::OutsideClockCalibration calibration = vlb::calibrate_outside_clock(outside, events, {});
  CHECK(calibration.overhead_ms >= 0);
  CHECK(calibration.overhead_ms < 50);

  auto forger = start("forges", 100);
  std::vector<double> reported, seen;
  for (std::uint64_t call = 1; call <= 8; ++call) {
    const vlb::HostCall result = forger->run_call(call_number(call), nullptr);
    reported.push_back(result.event_ms);
    seen.push_back(result.outside_ms);
  }
  const double reported_median = vlb::compute_statistics(reported).median;
  const double outside_median = vlb::compute_statistics(seen).median;
  INFO("calibration overhead " << calibration.overhead_ms << " ms, spread " << calibration.spread_ms << " ms; outside "
                               << outside_median << " ms, reported " << reported_median << " ms");
  CHECK(reported_median == Approx(10.0));
  const auto violation =
      vlb::outside_clock_violation(reported_median, vlb::TimerKind::kEvents, outside_median, calibration, 0);
  REQUIRE(violation.has_value());
  CHECK_THAT(*violation, Catch::Contains("the judge's own clock saw") && Catch::Contains("median of 10.0000 ms"));
  // The honest worker's own figures pass the same check.
  CHECK_FALSE(vlb::outside_clock_violation(vlb::compute_statistics(events).median, vlb::TimerKind::kEvents,
                                           vlb::compute_statistics(outside).median, calibration, 0));
}

TEST_CASE("a done before the judge's go is a broken protocol (REWARD_HACK)", "[judge][protocol]") {
  auto host = start("done_before_go");
  const HostFailure failure = failure_of(*host, 1);
  CHECK(failure.status() == CaseStatus::kRewardHack);
  CHECK_THAT(failure.what(), Catch::Contains("reported call 1 done before its go"));
}

TEST_CASE("a message nobody asked for is a broken protocol", "[judge][protocol]") {
  auto host = start("extra_message");
  CHECK_NOTHROW(host->run_call(call_number(1), nullptr));  // the first report is as due
  const HostFailure failure = failure_of(*host, 2);        // the second, unasked, is waiting
  CHECK(failure.status() == CaseStatus::kRewardHack);
  CHECK_THAT(failure.what(), Catch::Contains("a 'called' message out of turn"));
}

TEST_CASE("a report of another call, or one that is not JSON, is a broken protocol", "[judge][protocol]") {
  for (const char* behaviour : {"wrong_call", "malformed"}) {
    INFO(behaviour);
    auto host = start(behaviour);
    const HostFailure failure = failure_of(*host, 1);
    CHECK(failure.status() == CaseStatus::kRewardHack);
    CHECK_THAT(failure.what(), Catch::Contains("broke the judge's protocol"));
    CHECK_THAT(failure.what(), Catch::Contains(std::string(behaviour) == "malformed" ? "not JSON" : "answered call 2"));
  }
}

TEST_CASE("a refused system call, a worker that dies and one that never answers cost the case only",
          "[judge][protocol]") {
  {
    auto host = start("refused");
    const HostFailure failure = failure_of(*host, 1);
    CHECK(failure.status() == CaseStatus::kRuntimeError);
    CHECK_THAT(failure.what(), Catch::Contains("the sandbox refused the solution's ptrace system call"));
  }
  {
    auto host = start("dies");
    const HostFailure failure = failure_of(*host, 1);
    CHECK(failure.status() == CaseStatus::kRuntimeError);
    CHECK_THAT(failure.what(), Catch::Contains("exited with code 3"));
  }
  try {
    start("silent", 5, 1.0);
    FAIL("a worker that never says hello was accepted");
  } catch (const HostFailure& failure) {
    CHECK(failure.status() == CaseStatus::kTimeout);
    CHECK_THAT(failure.what(), Catch::Contains("ran past its 1 s limit"));
  }
}
