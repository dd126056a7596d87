#pragma once
// CUTLASS's own sm90 GEMMs, assembled from its builders with its stock TMA epilogue (bf16 out, no bias): what a user
// could build from the library in a few lines. The stage benchmark times them beside cuBLAS and the stages, so that a
// gap to cuBLAS can be told apart into mainloop (these kernels have no fused work) and our epilogue.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vlb::fused_b200::bench {

using bf16 = __nv_bfloat16;

struct StockGemm {
  std::string name;  // e.g. "cutlass-coop-128x256-c2x1"
  // out[rows, n] = a[rows, k] * w[n, k]^T, row-major, fp32 accumulation; swizzle is the tile scheduler's
  // max_swizzle_size (1, 2, 4 or 8). The workspace must hold kStockWorkspaceBytes.
  void (*run)(const bf16* a, const bf16* w, bf16* out, std::int64_t rows, std::int64_t n, std::int64_t k,
              int swizzle, int sm_count, void* workspace, cudaStream_t stream);
};

inline constexpr std::size_t kStockWorkspaceBytes = std::size_t{1} << 20;

// Empty when the build has no sm90a code.
std::vector<StockGemm> stock_gemms();

}  // namespace vlb::fused_b200::bench
