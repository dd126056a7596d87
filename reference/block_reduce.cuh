#pragma once
// Block-wide max and sum for the row kernels of the references (blockDim.x a multiple of 32, at most 1024).
#include <cuda_runtime.h>

namespace vlb::reference::detail {

template <class T, class Op>
__device__ T block_reduce(T value, Op op) {
  __shared__ T partials[32];
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // partials may still be read by a previous call
  if (lane == 0) partials[warp] = value;
  __syncthreads();
  const int warps = blockDim.x / 32;
  value = partials[0];
  for (int w = 1; w < warps; ++w) value = op(value, partials[w]);
  return value;
}

struct MaxOp {
  template <class T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct SumOp {
  template <class T>
  __device__ T operator()(T a, T b) const { return a + b; }
};

}  // namespace vlb::reference::detail
