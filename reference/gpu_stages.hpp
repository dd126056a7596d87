#pragma once
// The faithful reference's stages on the GPU, with the reference's bf16 rounding points (docs/operation.md steps 1-6).
// GpuReference::run composes them; tests of other solutions compare their own stages against them.
//
// Layouts (row-major, contiguous): Q and O [B, Lq, 32, 128] (= [B*Lq, 4096]), K and V [B, Lv, 8, 128].
// Every stage enqueues its work on ctx.stream only and allocates nothing.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "harness/solution/solution.hpp"

namespace vlb::reference {

struct StageContext {
  cublasHandle_t cublas = nullptr;
  cudaStream_t stream = nullptr;
  void* workspace = nullptr;         // stage_workspace_bytes(shape) bytes, 256-byte aligned
  std::size_t workspace_bytes = 0;
  // Tests only: fewer query rows per score chunk than score_chunk_rows(shape), to exercise ragged chunking. 0 = off.
  std::int64_t max_chunk_rows = 0;
};

// What the stages need besides their outputs: cuBLAS's workspace, then one scratch region used in turn for an fp32
// chunk of a projection (stages a, b) and one chunk of the score matrix (stage c).
std::size_t stage_workspace_bytes(const ProblemShape& shape);

// Rows of a projection accumulated per chunk in fp32 (then biased and rounded): at most kProjectionChunkRows.
inline constexpr std::int64_t kProjectionChunkRows = 4096;
std::int64_t projection_chunk_rows(const ProblemShape& shape);

// Query rows per score chunk: 4 heads x rows x Lv bf16 scores stay within kScoreChunkBytes.
inline constexpr std::size_t kScoreChunkBytes = std::size_t{128} << 20;
std::int64_t score_chunk_rows(const ProblemShape& shape);

// (a) Q = bf16(fp32(lang @ Wq^T) + bq) (the bias added to the fp32 accumulator, one rounding), then 1D RoPE in bf16 (positions from language_position_ids).
void faithful_q_stage(const ProblemShape& shape, const FusionInputs& inputs, bf16* q, const StageContext& ctx);

// (b) K = bf16(fp32(vis @ Wk^T) + bk) then sectioned 3D RoPE in bf16 (positions from vision_grid_thw);
//     V = bf16(fp32(vis @ Wv^T) + bv).
void faithful_kv_stage(const ProblemShape& shape, const FusionInputs& inputs, bf16* k, bf16* v,
                       const StageContext& ctx);

// (c) O = bf16(P @ V), P = bf16(softmax_fp32(bf16(bf16(Q K^T) * scale))), GQA head h on kv head h/4, in chunks of
//     score_chunk_rows(shape) query rows per kv head. `o` may alias `q` (each chunk's Q is read before its O is written).
void faithful_attention_stage(const ProblemShape& shape, const bf16* q, const bf16* k, const bf16* v, bf16* o,
                              const StageContext& ctx);

// (d) output = bf16(O @ Wo^T), no bias.
void faithful_output_stage(const ProblemShape& shape, const bf16* o, const bf16* o_proj_weight, bf16* output,
                           const StageContext& ctx);

}  // namespace vlb::reference
