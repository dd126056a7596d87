#pragma once
// The physical floor: a latency no correct computation can beat on this device. Unlike T_SOL (a datasheet figure for
// bf16), it assumes the fastest dense tensor-core format of the architecture (fp8 on Hopper, fp4 on Blackwell) at
// the device's maximum SM clock, and HBM at its peak (2 x memory clock x bus width), all asked of the device. A median
// below it is REWARD_HACK; between it and T_SOL the softer `implausibly_fast` note applies.
#include <optional>
#include <string>

#include "harness/core/device_info.hpp"
#include "harness/sol/speed_of_light.hpp"

namespace vlb {

// Dense tensor-core throughput of one SM per clock in the architecture's fastest format (FLOP = 2 x MAC).
struct TensorCoreRate {
  int compute_capability = 0;  // major*10+minor
  const char* format = "";     // "fp8", "fp4", "int4"
  double flops_per_clock_per_sm = 0;
};
// nullopt for an architecture the table does not know (then no floor is applied).
std::optional<TensorCoreRate> fastest_tensor_core_rate(int compute_capability);

struct PhysicalFloor {
  TensorCoreRate rate;
  double tensor_flops_per_s = 0;   // SMs x max SM clock x rate
  double memory_bytes_per_s = 0;   // 0 when the device reports no memory clock (then only compute counts)
  double compute_ms = 0, memory_ms = 0;
  double floor_ms = 0;             // max(compute, memory)
};

// `memory_counts` is false when L2 was not flushed before each call (the data may then come from L2, not HBM).
std::optional<PhysicalFloor> physical_floor(const WorkCount& work, const DeviceInfo& device, bool memory_counts);

// The REWARD_HACK reason when `median_ms` is below the floor (with every number that makes the floor), else nullopt.
std::optional<std::string> below_physical_floor(double median_ms, const PhysicalFloor& floor, const DeviceInfo& device);

}  // namespace vlb
