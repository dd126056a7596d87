#pragma once
// The whole operation of the fused solution, architecture-neutral: Q projection (bias + 1D RoPE), K/V projection
// (bias, sectioned 3D RoPE on K), GQA attention, O projection, with the intermediates in the caller's workspace.
// Everything runs on the caller's stream, K/V after Q: SOL-ExecBench rejects a source that forks work onto a second
// stream, and the fork measured no gain (NOTES.md, v9), so vlbench times exactly the code a package submits.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>

#include "harness/core/problem.hpp"
#include "harness/solution/solution.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/projection_cublas.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

enum class FusedStage { kProjectQ = 0, kProjectKv, kAttention, kProjectO };
inline constexpr int kFusedStages = 4;

// Which of K and V the workspace holds first: the one the batched K/V GEMM starts with (kv_batch_starts_with_v), so
// that its output stride steps forward like its weight stride. A function of the inputs' addresses.
enum class KvSlotOrder { kKFirst, kVFirst };
KvSlotOrder kv_slot_order(const FusionInputs& inputs);

// The workspace, carved in this order (each piece 256-byte aligned): Q, K and V (in KvSlotOrder), the attention
// output, the GEMM workspace shared by the Q and O projections (they never overlap in time), the K/V projection's
// and the split attention's partials (none where its last wave is not split: attention_split_workspace_bytes).
struct FusedWorkspace {
  bf16* q = nullptr;          // [B*Lq, 4096], RoPE applied unless attention_rotates_q(shape)
  bf16* k = nullptr;          // [B*Lv, 1024], RoPE applied
  bf16* v = nullptr;          // [B*Lv, 1024], its bias left to the attention where project_kv says so
  bf16* attention = nullptr;  // [B*Lq, 4096], the O projection's input
  Workspace q_and_o_gemm;
  Workspace kv_gemm;
  AttentionSplitWorkspace attention_split;

  static std::size_t bytes(const ProblemShape& shape, int sm_count);
  // Throws UsageError when `bytes` is smaller than bytes(shape, sm_count). A run() on inputs leaves K and V where
  // carve(..., kv_slot_order(those inputs)) finds them.
  static FusedWorkspace carve(void* base, std::size_t bytes, const ProblemShape& shape, int sm_count,
                              KvSlotOrder order);
};

// Where the solution follows the reference's bf16 rounding points. The RoPE steps in bf16 cost next to nothing and
// lift the least matched ratio of the suite from 99.77% to 99.95% (NOTES.md, v2); the attention stays in fp32.
struct FusedNumerics {
  RopeArithmetic rope = RopeArithmetic::kReferenceBf16;
};

// Events a benchmark records around the stages; with them the stages run one after another on the caller's stream,
// so that the time between two events is one stage's.
struct StageEvents {
  cudaEvent_t start = nullptr;
  std::array<cudaEvent_t, kFusedStages> after{};  // after[s]: recorded when stage s is done
};

// Whether Q leaves its projection unrotated and the attention applies its RoPE (Q on cuBLAS, projection_cublas.hpp).
bool attention_rotates_q(const ProblemShape& shape);

// Where the K/V biases go when K and V run as one batched cuBLAS GEMM. Added after it (v24), K is rounded twice, a
// quarter of its values one bf16 step off the reference's, which costs the matched ratio about 6/Lv points where the
// biases do not step as the weights do (NOTES.md, v26: 0.17 at Lv 28, 0.08 at 98, 0.03 at 196, 0.01 at 392). Below
// kFewKeys keys they stay in the GEMMs (two GEMMs where the batched one cannot take them).
inline constexpr std::int64_t kFewKeys = 196;
KvBiasPlacement kv_bias_placement(std::int64_t vision_seq);

class FusedOperation {
 public:
  // Creates the cuBLASLt handle of the projections on cuBLAS (projection_cublas.hpp) here, outside every timed call.
  explicit FusedOperation(int sm_count, FusedNumerics numerics = {})
      : sm_count_(sm_count), numerics_(numerics), cublas_(sm_count) {}

  std::size_t workspace_bytes(const ProblemShape& shape) const { return FusedWorkspace::bytes(shape, sm_count_); }
  // Enqueues the whole operation on args.stream; no allocation and no host synchronization. With `events`, the
  // stages are marked.
  void run(const FusionArgs& args, const StageEvents* events = nullptr) const;

 private:
  int sm_count_;
  FusedNumerics numerics_;
  CublasProjections cublas_;
};

}  // namespace vlb::fused_b200
