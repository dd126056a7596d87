// The throttling rule of clocks.hpp (the probe itself runs in the GPU tests).
#include <catch2/catch.hpp>

#include "harness/timing/clocks.hpp"

TEST_CASE("a probe below 90% of the rated maximum is throttled", "[timing]") {
  CHECK_FALSE(vlb::is_throttled(1980, 1980));
  CHECK_FALSE(vlb::is_throttled(1782.5, 1980));
  CHECK(vlb::is_throttled(1781.5, 1980));
  CHECK(vlb::is_throttled(1000, 1980));
  CHECK_FALSE(vlb::is_throttled(1000, 0));  // no rated maximum known: no verdict
}

TEST_CASE("clock telemetry flags a run when either probe is throttled", "[timing]") {
  vlb::DeviceInfo device;
  device.max_sm_clock_khz = 1'980'000;
  const vlb::ClockTelemetry steady = vlb::make_clock_telemetry(1970, 1960, device);
  CHECK(steady.max_sm_clock_mhz == Approx(1980));
  CHECK(steady.sm_clock_mhz_before == 1970);
  CHECK(steady.sm_clock_mhz_after == 1960);
  CHECK_FALSE(steady.throttled);
  CHECK(vlb::make_clock_telemetry(1970, 1500, device).throttled);
  CHECK(vlb::make_clock_telemetry(1500, 1970, device).throttled);
}
