#pragma once
// When a kernel of the fused solution may start, relative to the kernel before it on the same stream.
#include <cuda_runtime.h>

#include <cstddef>

namespace vlb::fused_b200 {

enum class LaunchOrder {
  // When everything before it on the stream has finished: the only safe choice when that work wrote anything the
  // kernel reads without waiting (the harness's fresh inputs, a test's buffers).
  kAfterPrevious,
  // Programmatic dependent launch (Hopper, sm_90a): the kernel's launch and set-up (barriers, TMA descriptor prefetch)
  // overlap the end of the previous kernel, and it waits for that kernel (griddepcontrol.wait) before its first load
  // of the previous kernel's output. A projection's epilogue reads its bias and positions without that wait, so they
  // must have been written before the previous kernel started; the fused operation guarantees it, since its first
  // kernel (Q) starts kAfterPrevious. Other architectures launch kAfterPrevious whatever is asked.
  kOverlapPrevious,
};

// The cudaLaunchKernelEx configuration of a launch in `order`: with kOverlapPrevious, the programmatic stream
// serialization attribute (the kernel must then wait, griddepcontrol.wait, before it reads the previous kernel's
// output). It points at its own attribute, so it is neither copied nor moved.
class OrderedLaunchConfig {
 public:
  OrderedLaunchConfig(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, LaunchOrder order) {
    config_.gridDim = grid;
    config_.blockDim = block;
    config_.dynamicSmemBytes = shared_bytes;
    config_.stream = stream;
    overlap_.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap_.val.programmaticStreamSerializationAllowed = 1;
    if (order == LaunchOrder::kOverlapPrevious) {
      config_.attrs = &overlap_;
      config_.numAttrs = 1;
    }
  }
  OrderedLaunchConfig(const OrderedLaunchConfig&) = delete;
  OrderedLaunchConfig& operator=(const OrderedLaunchConfig&) = delete;

  const cudaLaunchConfig_t* get() const { return &config_; }

 private:
  cudaLaunchAttribute overlap_{};
  cudaLaunchConfig_t config_{};
};

}  // namespace vlb::fused_b200
