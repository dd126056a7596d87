#pragma once
// The projections that go to cuBLAS on Hopper, where cuBLAS's GEMMs are faster than CUTLASS's sm90 kernels, ours and
// CUTLASS's stock ones alike (NOTES.md, p11, p14 and "Final measurement (v11)").
// - O (v11): no epilogue work, so no fusion is lost. At 512-4096 rows CUTLASS's kernels took 1.06-1.19x cuBLAS's
//   time; from 8192 rows they are level or faster, and O stays on them (projection_plan.hpp).
// - Q (v12): cuBLASLt's GEMM with its bias epilogue (bf16 out: the reference's own rounding point), then the 1D RoPE
//   in place by the staged epilogue kernel (projection_staged_epilogue.hpp), where cuBLAS's GEMM is enough faster to
//   pay for the extra pass over Q (1024-8192 rows; at 8192 rows 345 against our fused 436 us, the pass ~35 us).
#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <memory>

#include "harness/core/cublas_handle.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// cuBLAS runs O from kCublasOProjectionMinRows to below kCublasOProjectionRowLimit rows, on Hopper only (on Blackwell
// nothing has been measured, BLACKWELL.md). At 256 rows cuBLAS and ours tie (25.3 against 25.8 us, p14), and
// ours also overlaps its launch with the attention's end (v10), which a cuBLAS call cannot.
inline constexpr std::int64_t kCublasOProjectionMinRows = 512;
inline constexpr std::int64_t kCublasOProjectionRowLimit = 8192;
// cuBLAS runs Q from 1024 to 8192 rows, on Hopper only (v12). Below, cuBLAS's lead (4 us at 512 rows, p14) is about
// what the RoPE pass and its launch cost; at 16384 rows the pass (~70 us) costs more than cuBLAS gains (~55 us), and
// 11936 rows (workload 12), where p14 had the two level, was left on our kernel unmeasured.
inline constexpr std::int64_t kCublasQProjectionMinRows = 1024;
inline constexpr std::int64_t kCublasQProjectionMaxRows = 8192;

// Pure: whether O = attention · Woᵀ, or Q = lang · Wqᵀ + bq with RoPE, at `rows` rows goes to cuBLAS.
bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);
bool q_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);

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

class CublasQProjection {
 public:
  CublasQProjection();
  ~CublasQProjection();
  CublasQProjection(const CublasQProjection&) = delete;
  CublasQProjection& operator=(const CublasQProjection&) = delete;

  static constexpr std::size_t workspace_bytes() { return kCublasWorkspaceBytes; }

  // q_out[rows, 4096] = RoPE(bf16(lang · Wqᵀ + bq)) at language_position_ids, the rotation in `rope_arithmetic`:
  // cuBLASLt's GEMM with its bias epilogue, then the rotation in place. The GEMM's plan is made on the first call of
  // each row count (host work only; the harness's first call of a case is untimed).
  void launch(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight, const bf16* q_bias,
              const std::int64_t* language_position_ids, bf16* q_out, Workspace workspace, cudaStream_t stream,
              RopeArithmetic rope_arithmetic) const;

 private:
  struct Plan;
  const Plan& plan_for(std::int64_t rows) const;

  cublasLtHandle_t handle_ = nullptr;
  // By row count, made on first use; like every solution's run(), launch() is called from one thread at a time.
  mutable std::map<std::int64_t, std::unique_ptr<Plan>> plans_;
};

}  // namespace vlb::fused_b200
