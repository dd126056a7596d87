#include "harness/core/device_info.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "harness/core/cuda_check.hpp"

namespace vlb {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

namespace {

std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                     b[15]);
}

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  VLB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  const int count = device_count();
  if (count == 0) {
    throw SystemError("no CUDA GPU found (cudaGetDeviceCount reports none, or no NVIDIA driver is loaded)");
  }
  if (ordinal < 0 || ordinal >= count) {
    throw UsageError(fmt::format("--device {} does not exist: this machine has {} GPU(s), 0..{}", ordinal, count,
                                 count - 1));
  }
  cudaDeviceProp props{};
  VLB_CUDA_CHECK(cudaGetDeviceProperties(&props, ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = props.name;
  info.uuid = format_uuid(props.uuid);
  info.compute_major = props.major;
  info.compute_minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(props.l2CacheSize);
  info.shared_memory_per_block_optin = props.sharedMemPerBlockOptin;
  info.global_memory_bytes = props.totalGlobalMem;
  info.max_sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  info.max_memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  info.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  VLB_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  VLB_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

}  // namespace vlb
