#pragma once
// What the cuBLAS and CUTLASS probes of bench/fused_b200 share: cuBLAS status checks, seeded bf16 device buffers and
// their copy back as floats.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"

namespace vlb::fused_b200::bench {

inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": " + cublasGetStatusString(status));
  }
}

// Seeded values in [-scale, scale), filled on the host.
inline DeviceBuffer filled(std::size_t count, std::uint32_t seed, float scale) {
  std::vector<__nv_bfloat16> host(count);
  std::uint32_t state = seed * 0x9e3779b1u + 1u;
  for (__nv_bfloat16& value : host) {
    state = state * 1664525u + 1013904223u;
    value = __float2bfloat16(scale * (static_cast<float>(state >> 16) / 32768.0f - 1.0f));
  }
  DeviceBuffer buffer(count * sizeof(__nv_bfloat16));
  VLB_CUDA_CHECK(cudaMemcpy(buffer.data(), host.data(), count * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  return buffer;
}

// A bf16 buffer's values as floats.
inline std::vector<float> to_host(const DeviceBuffer& buffer) {
  std::vector<__nv_bfloat16> raw(buffer.bytes() / sizeof(__nv_bfloat16));
  VLB_CUDA_CHECK(cudaMemcpy(raw.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
  std::vector<float> values(raw.size());
  std::transform(raw.begin(), raw.end(), values.begin(), [](__nv_bfloat16 v) { return __bfloat162float(v); });
  return values;
}

}  // namespace vlb::fused_b200::bench
