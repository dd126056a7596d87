#pragma once
// An owned, non-blocking CUDA stream (it does not synchronize with the legacy default stream). Not copyable.
#include <cuda_runtime.h>

#include "harness/core/cuda_check.hpp"

namespace vlb {

class CudaStream {
 public:
  CudaStream() { VLB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { (void)cudaStreamDestroy(stream_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const { VLB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace vlb
