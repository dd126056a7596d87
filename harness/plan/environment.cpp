#include "harness/plan/environment.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <ctime>

namespace vlb {
namespace {

std::string host_name() {
  std::array<char, 256> buffer{};
  if (gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return "unknown";
  }
  return fmt::format("{}.{}.{}", major, minor, patch);
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer.data();
}

EnvironmentRecord collect_environment(const DeviceInfo& device, const std::string& gpu_spec_key) {
  EnvironmentRecord env;
  env.hostname = host_name();
  env.gpu_name = device.name;
  env.gpu_uuid = device.uuid;
  env.compute_capability = device.compute_capability();
  env.sm_count = device.sm_count;
  env.l2_bytes = device.l2_bytes;
  env.global_memory_bytes = device.global_memory_bytes;
  env.max_sm_clock_mhz = device.max_sm_clock_khz / 1000.0;
  env.max_memory_clock_mhz = device.max_memory_clock_khz / 1000.0;
  env.driver_version = device.driver_version;
  env.runtime_version = device.runtime_version;
  env.cuda_toolkit_version = fmt::format("{}.{}", CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10);
  env.cublas_version = cublas_version();
  env.cutlass_version = VLBENCH_CUTLASS_VERSION;
  env.gpu_spec_key = gpu_spec_key;
  return env;
}

}  // namespace vlb
