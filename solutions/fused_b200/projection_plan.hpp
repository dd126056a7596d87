#pragma once
// Host-side choice of how a projection GEMM is spread over the SMs: data-parallel tiles, split-K, or stream-K.
// Architecture-neutral and tested on the CPU; the sm90 launcher maps it onto CUTLASS's stream-K scheduler.
#include <cstdint>
#include <string_view>

namespace vlb::fused_b200 {

// The CTA tile of every projection kernel: one 128-column N tile is exactly one head, so RoPE pairs stay in a tile.
struct ProjectionTile {
  static constexpr std::int64_t kBlockM = 128;
  static constexpr std::int64_t kBlockN = 128;
  static constexpr std::int64_t kBlockK = 64;
};

enum class Decomposition { kDataParallel, kSplitK, kStreamK };
std::string_view decomposition_name(Decomposition decomposition);  // "data-parallel", "split-k", "stream-k"

// Which warp-specialized kernel runs the plan. Ping-pong (two consumer warpgroups on alternate tiles) overlaps one
// tile's epilogue with the other's mainloop but has no stream-K scheduler: data-parallel plans only.
enum class MainloopSchedule { kCooperative, kPingpong };
std::string_view schedule_name(MainloopSchedule schedule);  // "cooperative", "pingpong"

struct ProjectionShape {
  std::int64_t rows = 0;          // M = B * L (may be ragged)
  std::int64_t out_features = 0;  // N per group (a multiple of kBlockN)
  std::int64_t in_features = 0;   // K (a multiple of kBlockK)
  int groups = 1;                 // GEMMs of this shape in one launch (K and V: 2)
};

struct ProjectionPlan {
  Decomposition decomposition = Decomposition::kDataParallel;
  int splits = 1;                      // K slices per output tile (split-K only)
  std::int64_t output_tiles = 0;       // over all groups
  std::int64_t k_tiles = 0;            // per output tile
  MainloopSchedule schedule = MainloopSchedule::kCooperative;
};

// Throws UsageError for a ping-pong plan that is not data-parallel.
void check_projection_plan(const ProjectionPlan& plan);

// Throws UsageError when the shape breaks the tiling's requirements (N % 128, K % 64, rows or groups < 1).
void check_projection_shape(const ProjectionShape& shape);

// Few tiles against many SMs (at most half a wave: the 256-400-row cases): split K so that every SM streams a slice
// of the weights. More than one wave with a thin last one (a few waves at most): stream-K. Otherwise data-parallel
// tiles on the ping-pong kernel (measured v1: up to one wave, data-parallel beat stream-K).
ProjectionPlan plan_projection(const ProjectionShape& shape, int sm_count);

}  // namespace vlb::fused_b200
