#pragma once
// What the harness asks the device for (never hard-coded: SM count, L2 size, shared memory, clocks).
#include <cstddef>
#include <cstdint>
#include <string>

namespace vlb {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;                 // "NVIDIA H200"
  std::string uuid;                 // "GPU-xxxxxxxx-..."
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;
  std::size_t global_memory_bytes = 0;
  int max_sm_clock_khz = 0;
  int max_memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int driver_version = 0;           // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;          // cudaRuntimeGetVersion

  int compute_capability() const { return compute_major * 10 + compute_minor; }
};

int device_count();  // 0 when there is no GPU or no driver (never throws)
// Throws SystemError with one clear line when no GPU is usable.
DeviceInfo query_device(int ordinal);

}  // namespace vlb
