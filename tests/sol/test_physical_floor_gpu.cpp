// The physical floor from this GPU's own clocks and SM count lies below its datasheet T_SOL for every suite case.
#include <catch2/catch.hpp>

#include "harness/sol/physical_floor.hpp"
#include "harness/suite/suite.hpp"
#include "support/gpu_test.hpp"

TEST_CASE("this GPU's physical floor is positive and below its datasheet T_SOL", "[sol][floor][gpu]") {
  const vlb::DeviceInfo& device = vlb::testing::test_device();
  INFO(device.name << " sm_" << device.compute_capability() << ", " << device.sm_count << " SMs, "
                   << device.max_sm_clock_khz << " kHz, memory " << device.max_memory_clock_khz << " kHz x "
                   << device.memory_bus_width_bits << " bits");
  const std::vector<vlb::GpuSpec> specs = vlb::load_gpu_specs((vlb::default_workloads_dir() / "gpus.json").string());
  const vlb::GpuSpec& spec = vlb::select_gpu_spec(specs, device.name, std::nullopt);
  const vlb::Suite suite = vlb::load_suite("all", vlb::default_workloads_dir());
  for (const vlb::Workload& workload : suite.workloads) {
    const vlb::WorkCount work = vlb::count_work(workload.shape);
    const auto floor = vlb::physical_floor(work, device, /*memory_counts=*/true);
    REQUIRE(floor.has_value());  // the test GPU's architecture is in the table
    INFO(workload.uuid << ": floor " << floor->floor_ms << " ms, compute " << floor->compute_ms << " ms, memory "
                       << floor->memory_ms << " ms");
    CHECK(floor->memory_ms > 0);  // the device reports its memory clock and bus width
    CHECK(floor->floor_ms > 0);
    CHECK(floor->floor_ms < vlb::speed_of_light(work, spec).t_sol_ms);
  }
}
