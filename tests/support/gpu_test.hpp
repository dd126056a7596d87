#pragma once
// Helpers for GPU tests: a stream and the current device.
#include <cuda_runtime.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/cuda_stream.hpp"
#include "harness/core/device_info.hpp"

namespace vlb::testing {

using TestStream = CudaStream;

inline const DeviceInfo& test_device() {
  static const DeviceInfo info = query_device(0);
  return info;
}

}  // namespace vlb::testing
