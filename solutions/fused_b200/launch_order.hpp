#pragma once
// When a kernel of the fused solution may start, relative to the kernel before it on the same stream.
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

}  // namespace vlb::fused_b200
