#pragma once
// Helpers for GPU tests: a stream and the current device.
#include <cuda_runtime.h>

#include "harness/core/cuda_check.hpp"
#include "harness/core/device_info.hpp"

namespace vlb::testing {

class TestStream {
 public:
  TestStream() { VLB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~TestStream() { (void)cudaStreamDestroy(stream_); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void sync() const { VLB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

inline const DeviceInfo& test_device() {
  static const DeviceInfo info = query_device(0);
  return info;
}

}  // namespace vlb::testing
