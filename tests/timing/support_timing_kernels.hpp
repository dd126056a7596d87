#pragma once
// Kernels of known behaviour for the timing tests, launched from host code.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace vlb::testing {

// One thread spins on %globaltimer for `duration_us`: a kernel of known duration.
void launch_spin_kernel(cudaStream_t stream, double duration_us);
// The same spin under another kernel name (a "different kernel" for the kernel-set audit).
void launch_other_spin_kernel(cudaStream_t stream, double duration_us);

// Sums `words` 32-bit words with every SM (a memory-bound read) into `*sum`, which must be zeroed by the caller.
void launch_read_sum_kernel(cudaStream_t stream, const std::uint32_t* data, std::size_t words, int sm_count,
                            unsigned long long* sum);

}  // namespace vlb::testing
