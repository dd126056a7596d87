// How guard-zone damage is reported (the zone kernels are in the GPU tests).
#include <catch2/catch.hpp>

#include "harness/check/guard_zones.hpp"
#include "harness/core/problem.hpp"

TEST_CASE("guard damage names each buffer, the side and the byte count", "[check][guards]") {
  CHECK(vlb::describe_guard_damage({}).empty());
  const std::string reason = vlb::describe_guard_damage({{"output", 0, 300}, {"q_proj_bias", 64, 0}});
  CHECK_THAT(reason, Catch::StartsWith("the solution wrote outside the buffers it was given: "));
  CHECK_THAT(reason, Catch::Contains("300 byte(s) in the guard zone after output; 64 byte(s) in the guard zone before "
                                     "q_proj_bias"));
  CHECK_THAT(reason, Catch::Contains("at least 65536 bytes"));
}

TEST_CASE("guard zones keep a guarded buffer's 256-byte alignment", "[check][guards]") {
  STATIC_REQUIRE(vlb::kGuardZoneBytes % 256 == 0);
  STATIC_REQUIRE(vlb::kMaxGuardedBuffers >= vlb::kNumInputs + 2);  // the inputs, the output, the workspace
}
