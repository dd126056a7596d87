#pragma once
// The O projection through cuBLAS where cuBLAS is faster than CUTLASS's sm90 kernels. O has no epilogue work (no
// bias, no RoPE), so no fusion is lost by leaving it to the library. At 512-4096 rows CUTLASS's sm90 kernels took
// 1.06-1.19x cuBLAS's time: ours, and CUTLASS's stock 128x256 one that runs O from about 1000 rows (NOTES.md, p11
// and p14; v11). From 8192 rows they are level or faster, and O stays on them (projection_plan.hpp).
#include <cstdint>

#include "harness/core/cublas_handle.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// cuBLAS runs O from kCublasOProjectionMinRows to below kCublasOProjectionRowLimit rows, on Hopper only (on Blackwell
// nothing has been measured, BLACKWELL.md). At 256 rows cuBLAS and ours tie (25.3 against 25.8 us, p14), and
// ours also overlaps its launch with the attention's end (v10), which a cuBLAS call cannot.
inline constexpr std::int64_t kCublasOProjectionMinRows = 512;
inline constexpr std::int64_t kCublasOProjectionRowLimit = 8192;

// Pure: whether O = attention · Woᵀ at `rows` rows goes to cuBLAS on `architecture`.
bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);

class CublasOProjection {
 public:
  // The workspace cuBLAS gets (its recommended size on Hopper), so that it never allocates inside a call.
  static constexpr std::size_t workspace_bytes() { return kCublasWorkspaceBytes; }

  // output[rows, 4096] = attention[rows, 4096] · o_weight[4096, 4096]ᵀ, bf16 in and out, fp32 accumulation; enqueued
  // on `stream` after the work before it (no programmatic overlap: cuBLAS launches its own kernels).
  void launch(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output, Workspace workspace,
              cudaStream_t stream) const;

 private:
  CublasHandle handle_;
};

}  // namespace vlb::fused_b200
