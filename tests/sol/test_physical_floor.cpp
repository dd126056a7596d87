// The physical floor: the fastest dense tensor-core format at the device's maximum SM clock and HBM at its peak,
// from what the device reports; below it a median is REWARD_HACK, and it lies below the datasheet T_SOL.
#include <catch2/catch.hpp>

#include <string>

#include "harness/sol/physical_floor.hpp"
#include "harness/suite/suite.hpp"

namespace {

// What an H200 SXM reports: 132 SMs at up to 1980 MHz, HBM3e on a 6144-bit bus at 3201 MHz.
vlb::DeviceInfo h200_like() {
  vlb::DeviceInfo device;
  device.name = "NVIDIA H200";
  device.compute_major = 9;
  device.compute_minor = 0;
  device.sm_count = 132;
  device.max_sm_clock_khz = 1'980'000;
  device.max_memory_clock_khz = 3'201'000;
  device.memory_bus_width_bits = 6144;
  return device;
}

}  // namespace

TEST_CASE("the floor takes fp8 on Hopper and fp4 on Blackwell, and knows no unknown architecture", "[sol][floor]") {
  CHECK(std::string(vlb::fastest_tensor_core_rate(90)->format) == "fp8");
  CHECK(vlb::fastest_tensor_core_rate(90)->flops_per_clock_per_sm == 8192);  // twice bf16's 4096
  CHECK(std::string(vlb::fastest_tensor_core_rate(100)->format) == "fp4");
  CHECK(vlb::fastest_tensor_core_rate(100)->flops_per_clock_per_sm == 32768);  // four times bf16's 8192
  CHECK_FALSE(vlb::fastest_tensor_core_rate(75).has_value());
  vlb::DeviceInfo unknown = h200_like();
  unknown.compute_major = 7;
  CHECK_FALSE(vlb::physical_floor(vlb::count_work({2, 128, 196}), unknown, true).has_value());
}

TEST_CASE("the floor of case 15 on an H200 from the device's own numbers", "[sol][floor]") {
  const vlb::WorkCount work = vlb::count_work({2, 128, 196});
  const auto floor = vlb::physical_floor(work, h200_like(), /*memory_counts=*/true);
  REQUIRE(floor.has_value());
  // 132 SMs x 1.98 GHz x 8192 FLOP/clock = 2.141 PFLOP/s; 2 x 3.201 GHz x 768 bytes = 4.917 TB/s.
  CHECK(floor->tensor_flops_per_s == Approx(132 * 1.98e9 * 8192));
  CHECK(floor->memory_bytes_per_s == Approx(2 * 3.201e9 * 768));
  CHECK(floor->compute_ms == Approx(work.flops / (132 * 1.98e9 * 8192) * 1e3));
  CHECK(floor->memory_ms == Approx(work.bytes / (2 * 3.201e9 * 768) * 1e3));
  CHECK(floor->floor_ms == Approx(std::max(floor->compute_ms, floor->memory_ms)));
  CHECK(floor->floor_ms == Approx(0.0186).epsilon(0.01));  // memory-bound: 91 MB, the weights mostly

  const auto reason = vlb::below_physical_floor(0.005, *floor, h200_like());
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("0.0050 ms is below this GPU's physical floor 0.0186 ms"));
  CHECK_THAT(*reason, Catch::Contains("fp8"));
  CHECK_THAT(*reason, Catch::Contains("132 SMs x 1980 MHz"));
  CHECK_THAT(*reason, Catch::Contains("6144-bit bus"));
  CHECK_FALSE(vlb::below_physical_floor(0.0190, *floor, h200_like()).has_value());
}

TEST_CASE("without an L2 flush only the compute term counts", "[sol][floor]") {
  const vlb::WorkCount work = vlb::count_work({2, 128, 196});
  const auto floor = vlb::physical_floor(work, h200_like(), /*memory_counts=*/false);
  REQUIRE(floor.has_value());
  CHECK(floor->memory_ms == 0);
  CHECK(floor->floor_ms == floor->compute_ms);
  CHECK_THAT(*vlb::below_physical_floor(floor->floor_ms / 2, *floor, h200_like()), Catch::Contains("memory not counted"));
}

TEST_CASE("the physical floor lies below the datasheet T_SOL for every suite case", "[sol][floor]") {
  const std::vector<vlb::GpuSpec> specs =
      vlb::load_gpu_specs((vlb::default_workloads_dir() / "gpus.json").string());
  const vlb::GpuSpec& h200 = vlb::select_gpu_spec(specs, "NVIDIA H200", std::nullopt);
  const vlb::Suite suite = vlb::load_suite("all", vlb::default_workloads_dir());
  for (const vlb::Workload& workload : suite.workloads) {
    INFO(workload.uuid);
    const vlb::WorkCount work = vlb::count_work(workload.shape);
    const auto floor = vlb::physical_floor(work, h200_like(), true);
    REQUIRE(floor.has_value());
    CHECK(floor->floor_ms < vlb::speed_of_light(work, h200).t_sol_ms);
    CHECK(floor->floor_ms > 0);
  }
}
