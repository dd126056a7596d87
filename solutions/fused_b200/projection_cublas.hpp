#pragma once
// The projections that go to cuBLAS on Hopper, where cuBLAS's GEMMs (nvjet) are faster than CUTLASS's sm90 kernels,
// ours and CUTLASS's stock ones alike (NOTES.md, p11, p14, "Final measurement (v11)", v12, v13). Each is cuBLASLt's
// GEMM as PyTorch's F.linear calls it: bf16 in and out, fp32 accumulation, the bias in its epilogue (the reference's
// own rounding point).
// - Q (v12, v13): the bias GEMM alone; the attention kernel applies the 1D RoPE as it reads each Q tile
//   (AttentionQueryRope in attention.hpp). v12 rotated Q in a pass of its own, which cost up to 95 us at 16384 rows.
// - K and V (v13): two bias GEMMs, each weight read where it is, then the sectioned 3D RoPE over K in place (the
//   staged epilogue kernel, projection_staged_epilogue.hpp): K is read by every Q tile, so it is rotated once.
// - O (v11, v13): no epilogue, so no fusion is lost.
// What each gained, case by case, and the suite's per-kernel times behind the rules: NOTES.md, v13.
#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "harness/core/cublas_handle.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// Where cuBLAS runs each projection, on Hopper only (on Blackwell nothing has been measured, BLACKWELL.md). Below
// these row counts our kernels are level or faster, and they overlap their launch with the kernel before them, which
// a cuBLAS call cannot: Q at 512 rows (p14, v12), K/V at 784 vision rows (v13's stage bench: 37.1 against 37.2 us;
// ours faster at 392), O at 256 rows (25.3 against 25.8 us, p14).
inline constexpr std::int64_t kCublasQProjectionMinRows = 1024;   // B * Lq
inline constexpr std::int64_t kCublasKvProjectionMinRows = 1024;  // B * Lv
inline constexpr std::int64_t kCublasOProjectionMinRows = 512;    // B * Lq

// Pure: whether the Q, K/V or O projection at `rows` rows goes to cuBLAS.
bool q_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);
bool kv_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);
bool o_projection_on_cublas(std::int64_t rows, KernelArchitecture architecture);

// out[rows, n] = activations[rows, k] · weight[n, k]ᵀ (+ bias[n]), bf16 in and out, fp32 accumulation, one rounding
// to bf16: cuBLASLt's GEMM, with its bias epilogue where there is a bias. Each (rows, n, k, bias or not) gets its
// plan on first use (host work only; the harness's first call of a case is untimed).
class CublasLinear {
 public:
  CublasLinear();
  ~CublasLinear();
  CublasLinear(const CublasLinear&) = delete;
  CublasLinear& operator=(const CublasLinear&) = delete;

  // The workspace cuBLAS gets (its recommended size on Hopper), so that it never allocates inside a call.
  static constexpr std::size_t workspace_bytes() { return kCublasWorkspaceBytes; }

  // Enqueued on `stream` after the work before it (no programmatic overlap: cuBLAS launches its own kernels).
  void launch(const bf16* activations, std::int64_t rows, std::int64_t n, std::int64_t k, const bf16* weight,
              const bf16* bias, bf16* out, Workspace workspace, cudaStream_t stream) const;

 private:
  struct Plan;
  using PlanKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>;
  const Plan& plan_for(const PlanKey& key) const;

  cublasLtHandle_t handle_ = nullptr;
  // Made on first use; like every solution's run(), launch() is called from one thread at a time.
  mutable std::map<PlanKey, std::unique_ptr<Plan>> plans_;
};

// The fused operation's three projections on cuBLAS, with their RoPE passes.
class CublasProjections {
 public:
  static constexpr std::size_t workspace_bytes() { return CublasLinear::workspace_bytes(); }

  // q_out[rows, 4096] = bf16(lang · Wqᵀ + bq), not rotated: the attention rotates it (AttentionQueryRope).
  void project_q(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight, const bf16* q_bias,
                 bf16* q_out, Workspace workspace, cudaStream_t stream) const;
  // k_out[rows, 1024] = RoPE3D(bf16(vision · Wkᵀ + bk)) at vision_grid_thw [rows, 3] (t, h, w);
  // v_out[rows, 1024] = bf16(vision · Wvᵀ + bv).
  void project_kv(const bf16* vision_hidden, std::int64_t rows, const bf16* k_weight, const bf16* k_bias,
                  const bf16* v_weight, const bf16* v_bias, const std::int64_t* vision_grid_thw, bf16* k_out,
                  bf16* v_out, Workspace workspace, cudaStream_t stream, RopeArithmetic rope_arithmetic) const;
  // output[rows, 4096] = attention[rows, 4096] · Woᵀ.
  void project_o(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output, Workspace workspace,
                 cudaStream_t stream) const;

 private:
  CublasLinear linear_;
};

}  // namespace vlb::fused_b200
