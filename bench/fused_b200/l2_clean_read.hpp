#pragma once
// Reads a buffer once, so that L2 ends up holding clean lines of it: after the write-flush (a memset), the timed
// call would otherwise start by writing back the flush's dirty lines. For the stage benchmark's --clean-l2 mode.
#include <cuda_runtime.h>

#include <cstddef>

namespace vlb::fused_b200::bench {

// Reads `bytes` (a multiple of 16) from `buffer`; `sink` (kCleanReadBlocks words) takes a store that depends on the
// data read, so that the reads stay.
inline constexpr int kCleanReadBlocks = 1024;
void launch_clean_read(const void* buffer, std::size_t bytes, unsigned* sink, cudaStream_t stream);

}  // namespace vlb::fused_b200::bench
