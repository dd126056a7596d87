#pragma once
// Host-side choice of how a projection GEMM is spread over the SMs: data-parallel tiles, split-K, or stream-K.
// Architecture-neutral and tested on the CPU; the sm90 launcher maps it onto CUTLASS's stream-K scheduler.
#include <cstdint>
#include <string_view>

namespace vlb::fused_b200 {

enum class Decomposition { kDataParallel, kSplitK, kStreamK };
std::string_view decomposition_name(Decomposition decomposition);  // "data-parallel", "split-k", "stream-k"

// The warp-specialized kernels a plan can run on (NOTES.md has the 128x256 and 2x1-cluster kernels tried and
// dropped). Cooperative: both consumer warpgroups on one tile (with CUTLASS's stream-K scheduler: data-parallel,
// split-K and stream-K). Ping-pong: the two consumer warpgroups on alternate tiles, so that one's epilogue runs under
// the other's mainloop; persistent data-parallel scheduler only. Ping-pong 64x128: twice the tiles of 128x128, for
// problems too small to fill the SMs otherwise, without split-K's reduction and workspace reset.
// Plain cooperative 128x256 in a 2x1 cluster: CUTLASS's own TMA epilogue, so for outputs with no epilogue work (the O
// projection) only; its wide tiles read the activations half as often (O at 16384 rows: 799 us against 897, p14).
enum class ProjectionKernel { kCooperative128x128, kPingpong128x128, kPingpong64x128, kPlainCooperative128x256 };
// "coop-128x128", "pingpong-128x128", "pingpong-64x128", "plain-coop-128x256-c2x1"
std::string_view kernel_name(ProjectionKernel kernel);

// Whether the outputs need our epilogue (bias, RoPE or a scale) or are the plain product.
enum class OutputWork { kFusedEpilogue, kPlain };

struct KernelTile {
  std::int64_t block_m = 128;
  std::int64_t block_n = 128;  // whole heads (128 columns each), so that RoPE pairs stay in a tile
  std::int64_t block_k = 64;
  bool data_parallel_only = false;
  bool plain_output_only = false;  // no bias, RoPE or scale; one group
};
KernelTile kernel_tile(ProjectionKernel kernel);

struct ProjectionShape {
  std::int64_t rows = 0;          // M = B * L (may be ragged)
  std::int64_t out_features = 0;  // N per group (a multiple of 128: whole heads)
  std::int64_t in_features = 0;   // K (a multiple of 64)
  int groups = 1;                 // GEMMs of this shape in one launch (K and V: 2)
};

struct ProjectionPlan {
  Decomposition decomposition = Decomposition::kDataParallel;
  int splits = 1;                      // K slices per output tile (split-K only)
  std::int64_t output_tiles = 0;       // over all groups
  std::int64_t k_tiles = 0;            // per output tile
  ProjectionKernel kernel = ProjectionKernel::kPingpong128x128;
  // The tile scheduler's maximum swizzle (1, 2, 4 or 8): consecutive tiles walk strips this many tiles wide, so that
  // the tiles in flight share operands in L2. CUTLASS narrows it where the grid is too small for it.
  int swizzle = 1;
};

// Throws UsageError when the shape breaks every kernel's requirements (N % 128, K % 64, rows or groups < 1).
void check_projection_shape(const ProjectionShape& shape);

// Throws UsageError for a plan its kernel cannot run, or a shape no kernel runs: a split-K or stream-K plan on
// ping-pong, splits without split-K, a swizzle other than 1, 2, 4 or 8, or the plain kernel on fused or grouped work.
void check_projection_plan(const ProjectionPlan& plan, const ProjectionShape& shape,
                           OutputWork work = OutputWork::kFusedEpilogue);

// A plan with its tile counts filled in for the kernel's tile; checked with check_projection_plan.
ProjectionPlan make_plan(const ProjectionShape& shape, ProjectionKernel kernel, Decomposition decomposition,
                         int splits = 1);

// Even 64-row tiles fill at most half the SMs (below ~128 rows): split K so that every SM streams a slice of the
// weights, on the cooperative kernel. One wave of 64-row tiles (~256 rows): ping-pong 64x128. More than one wave of
// 128-row tiles with a thin last one (a few waves at most): stream-K, cooperative. Otherwise (one wave included)
// data-parallel on ping-pong 128x128. Plain work with at least a wave of 128x256 tiles and no thin last wave: the plain
// 128x256 kernel.
ProjectionPlan plan_projection(const ProjectionShape& shape, int sm_count,
                               OutputWork work = OutputWork::kFusedEpilogue);

// Whether the plain 128x256 kernel's tiles of this shape make one wave that leaves fewer SMs idle than one more row of
// tiles would fill (O at 897-1024 rows on 132 SMs: 128 CTAs, as many as cuBLAS's own tiling of it, v33).
bool plain_kernel_fills_one_wave(const ProjectionShape& shape, int sm_count);

}  // namespace vlb::fused_b200
