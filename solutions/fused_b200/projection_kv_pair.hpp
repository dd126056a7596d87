#pragma once
// The K/V pair on CUTLASS (sm90a) where one wave of 128 x 208 tiles covers it exactly: K and V as one batched GEMM
// in cuBLAS's orientation (features x tokens: A the weights, B the vision activations at a batch stride of 0, the
// output feature-major per token), 8 feature tiles x token tiles of 208 x 2. cuBLAS runs the same pair as 112 CTAs
// of 128 x 224 at 1568 rows, and, being cuBLAS, cannot start before Q's GEMM has ended; this kernel can, as its
// programmatic dependent (NOTES.md, v25: 2.7-2.8 us less than cuBLAS's pair after Q at 1568 rows on an H100).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "harness/core/problem.hpp"
#include "solutions/fused_b200/launch_order.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

inline constexpr std::int64_t kKvPairTokenTile = 208;
// One K or V head: the tile's 128 features.
inline constexpr std::int64_t kKvPairFeatureTile = 128;
// Feature tiles of K and V together: a token tile's CTAs.
inline constexpr std::int64_t kKvPairCtasPerTokenTile = 2 * ModelDims::kKvProjDim / kKvPairFeatureTile;

// Whether the pair runs on CUTLASS at `rows` vision rows: where its token tiles fill the GPU in exactly one wave
// (sm_count / 16 of them: 1457-1664 rows on 132 SMs). Fewer leave SMs idle that cuBLAS's tiling fills (784 rows:
// +11 us), more take a second wave (3136 rows: +4 us).
constexpr bool kv_pair_on_cutlass(std::int64_t rows, int sm_count) {
  if (rows <= 0 || sm_count < kKvPairCtasPerTokenTile) return false;
  const std::int64_t token_tiles = (rows + kKvPairTokenTile - 1) / kKvPairTokenTile;
  return token_tiles == sm_count / kKvPairCtasPerTokenTile;
}

// out[l][token][feature] = bf16(activations[token] · weight_l[feature]ᵀ + bias_l[feature]) for l in {first,
// second}: the second weight, bias and output `*_stride` elements after the first, in 16-byte steps; the weights'
// and outputs' positive (TMA's), the biases' of either sign (plain loads: cutlass_pair_strides); `bias` null: no
// bias.
struct KvPairLaunch {
  const __nv_bfloat16* activations = nullptr;
  std::int64_t rows = 0;
  const __nv_bfloat16* weight = nullptr;
  const __nv_bfloat16* bias = nullptr;
  __nv_bfloat16* out = nullptr;
  std::int64_t weight_stride = 0;
  std::int64_t bias_stride = 0;
  std::int64_t out_stride = 0;
};

// Whether `launch`'s pointers and strides meet the kernel's TMA and vector-load alignment (16 bytes each).
bool kv_pair_aligned(const KvPairLaunch& launch);

namespace sm90 {
// Enqueues the pair (kOverlapPrevious: as the previous kernel's programmatic dependent, its launch and set-up under
// that kernel's end; CUTLASS's kernel waits for it, griddepcontrol.wait, before its first load and store). Throws
// UsageError where `workspace` is too small, SystemError where CUTLASS refuses the launch.
void run_kv_pair_128x208(const KvPairLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream,
                         LaunchOrder order);
}  // namespace sm90

}  // namespace vlb::fused_b200
