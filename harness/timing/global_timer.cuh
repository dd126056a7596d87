#pragma once
// %globaltimer: the GPU's nanosecond wall clock, readable from device code (used by the clock probe and by tests
// that need kernels of a known duration).
#include <cuda_runtime.h>

namespace vlb {

__device__ __forceinline__ unsigned long long read_global_timer_ns() {
  unsigned long long nanoseconds;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
  return nanoseconds;
}

}  // namespace vlb
