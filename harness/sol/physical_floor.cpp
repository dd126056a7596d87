#include "harness/sol/physical_floor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace vlb {
namespace {

// Dense (not 2:4 sparse) peak per SM per clock, from NVIDIA's architecture whitepapers: A100 int4 8192 ops (1248
// TOPS over 108 SMs at 1.41 GHz); GA10x and AD10x int4 4096; H100/H200 fp8 8192 (1979 TFLOP/s over 132 SMs at
// 1.83 GHz, twice bf16); B200 fp4 32768 (four times its bf16 4096 MACs); Blackwell Ultra (sm_103) fp4 1.5x B200's;
// GB20x fp4 4096. Where a row covers several products, the fastest one's rate: the floor stays a lower bound.
constexpr std::array<TensorCoreRate, 7> kRates = {{
    {80, "int4", 8192},
    {86, "int4", 4096},
    {89, "int4", 4096},
    {90, "fp8", 8192},
    {100, "fp4", 32768},
    {103, "fp4", 49152},
    {120, "fp4", 4096},
}};

// A margin for timer granularity: the floor is already out of any real kernel's reach.
constexpr double kFloorSlack = 0.02;

}  // namespace

std::optional<TensorCoreRate> fastest_tensor_core_rate(int compute_capability) {
  const auto found = std::find_if(kRates.begin(), kRates.end(),
                                  [&](const TensorCoreRate& rate) { return rate.compute_capability == compute_capability; });
  if (found == kRates.end()) return std::nullopt;
  return *found;
}

std::optional<PhysicalFloor> physical_floor(const WorkCount& work, const DeviceInfo& device, bool memory_counts) {
  const std::optional<TensorCoreRate> rate = fastest_tensor_core_rate(device.compute_capability());
  if (!rate || device.sm_count <= 0 || device.max_sm_clock_khz <= 0) return std::nullopt;
  PhysicalFloor floor;
  floor.rate = *rate;
  floor.tensor_flops_per_s = device.sm_count * (device.max_sm_clock_khz * 1e3) * rate->flops_per_clock_per_sm;
  floor.compute_ms = work.flops / floor.tensor_flops_per_s * 1e3;
  if (memory_counts && device.max_memory_clock_khz > 0 && device.memory_bus_width_bits > 0) {
    // Double data rate: two transfers per memory clock over the whole bus.
    floor.memory_bytes_per_s = 2.0 * (device.max_memory_clock_khz * 1e3) * (device.memory_bus_width_bits / 8.0);
    floor.memory_ms = work.bytes / floor.memory_bytes_per_s * 1e3;
  }
  floor.floor_ms = std::max(floor.compute_ms, floor.memory_ms);
  return floor;
}

std::optional<std::string> below_physical_floor(double median_ms, const PhysicalFloor& floor, const DeviceInfo& device) {
  if (median_ms >= floor.floor_ms * (1.0 - kFloorSlack)) return std::nullopt;
  const std::string memory =
      floor.memory_bytes_per_s > 0
          ? fmt::format("memory {:.4f} ms (every input and the output once at {:.2f} TB/s: 2 x {:.0f} MHz x {}-bit bus)",
                        floor.memory_ms, floor.memory_bytes_per_s * 1e-12, device.max_memory_clock_khz * 1e-3,
                        device.memory_bus_width_bits)
          : std::string("memory not counted");
  return fmt::format(
      "the median {:.4f} ms is below this GPU's physical floor {:.4f} ms: compute {:.4f} ms (dense {} at {:.0f} "
      "TFLOP/s: {} SMs x {:.0f} MHz x {:.0f} FLOP/clock), {}; no correct computation can be this fast",
      median_ms, floor.floor_ms, floor.compute_ms, floor.rate.format, floor.tensor_flops_per_s * 1e-12,
      device.sm_count, device.max_sm_clock_khz * 1e-3, floor.rate.flops_per_clock_per_sm, memory);
}

}  // namespace vlb
