#include "harness/timing/l2_flusher.hpp"

#include <fmt/format.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"

namespace vlb {

L2Flusher::L2Flusher(const DeviceInfo& device) {
  if (device.l2_bytes == 0) throw SystemError(fmt::format("device '{}' reports no L2 size; cannot flush L2", device.name));
  buffer_ = DeviceBuffer(2 * device.l2_bytes);
}

void L2Flusher::flush(cudaStream_t stream, int iteration) {
  VLB_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), iteration & 0x7f, buffer_.bytes(), stream));
}

}  // namespace vlb
