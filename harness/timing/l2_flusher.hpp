#pragma once
// Writes twice the L2 size before a timed call, so that the call starts with none of its data in L2. Shared by the
// harness's measurement loop and the fused solution's stage benchmark.
#include <cuda_runtime.h>

#include "harness/core/device_buffer.hpp"
#include "harness/core/device_info.hpp"

namespace vlb {

class L2Flusher {
 public:
  // Throws SystemError for a device that reports no L2 size.
  explicit L2Flusher(const DeviceInfo& device);
  // A different byte per iteration, so that no flush is ever a no-op on compressed or cached lines.
  void flush(cudaStream_t stream, int iteration);

 private:
  DeviceBuffer buffer_;
};

}  // namespace vlb
