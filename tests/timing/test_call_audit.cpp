// The REWARD_HACK rules on CUPTI records, with synthetic records (the GPU tests drive them with real kernels).
#include <catch2/catch.hpp>

#include "harness/timing/call_audit.hpp"

namespace {

constexpr std::uint64_t kMs = 1'000'000;  // ns

vlb::AuditedCall call_with(int iteration, std::uint64_t start_ns, std::uint64_t end_ns, std::uint64_t stop_observed_ns,
                           double event_ms, std::set<std::string> names) {
  vlb::AuditedCall call;
  call.iteration = iteration;
  call.event_ms = event_ms;
  call.stop_observed_ns = stop_observed_ns;
  call.activity.first_start_ns = start_ns;
  call.activity.last_end_ns = end_ns;
  call.activity.record_count = static_cast<int>(names.size());
  call.activity.last_ending_name = names.empty() ? "" : *names.rbegin();
  call.activity.names = std::move(names);
  return call;
}

}  // namespace

TEST_CASE("calls whose work lies inside the events window pass the audit", "[timing]") {
  vlb::CallAudit audit;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t base = 100 * kMs * (i + 1);
    audit.add(call_with(10 + i, base, base + kMs / 5, base + kMs / 5 + 20'000, 0.21, {"gemm", "attention"}));
  }
  CHECK(audit.violations().empty());
}

TEST_CASE("work that ends after the stop event completed is a violation", "[timing]") {
  vlb::CallAudit audit;
  audit.add(call_with(10, 0, kMs / 5, kMs / 5 + 10'000, 0.21, {"gemm"}));
  audit.add(call_with(11, 10 * kMs, 10 * kMs + kMs, 10 * kMs + kMs / 10, 0.11, {"gemm"}));
  const auto violations = audit.violations();
  REQUIRE(violations.size() == 1);
  CHECK_THAT(violations[0], Catch::StartsWith("REWARD_HACK") && Catch::Contains("1 of 2") &&
                                Catch::Contains("iteration 11") && Catch::Contains("'gemm'"));
}

TEST_CASE("a CUPTI span longer than the events window is a violation", "[timing]") {
  vlb::CallAudit audit;
  // Work that started 0.3 ms before the start event (on another stream, during the flush) but ended in time.
  audit.add(call_with(10, 0, kMs / 2, kMs / 2 + 10'000, 0.2, {"gemm"}));
  const auto violations = audit.violations();
  REQUIRE(violations.size() == 1);
  CHECK_THAT(violations[0], Catch::Contains("CUPTI span") && Catch::Contains("events window"));
}

TEST_CASE("a kernel set that changes after the first timed call is a violation", "[timing]") {
  vlb::CallAudit audit;
  audit.add(call_with(10, 0, kMs / 5, kMs / 5 + 10'000, 0.21, {"gemm", "attention"}));
  audit.add(call_with(11, kMs, kMs + kMs / 5, kMs + kMs / 5 + 10'000, 0.21, {"gemm", "attention"}));
  audit.add(call_with(12, 2 * kMs, 2 * kMs + kMs / 50, 2 * kMs + kMs / 50 + 10'000, 0.03, {"[memcpy]"}));
  const auto violations = audit.violations();
  REQUIRE(violations.size() == 1);
  CHECK_THAT(violations[0], Catch::StartsWith("REWARD_HACK") && Catch::Contains("1 of 3") &&
                                Catch::Contains("iteration 12") && Catch::Contains("'[memcpy]'") &&
                                Catch::Contains("'attention'"));
}
