#include "solutions/fused_b200/projection_plan.hpp"

#include <algorithm>
#include <string>

#include "harness/core/errors.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr std::int64_t kHeadColumns = 128;
constexpr std::int64_t kBlockK = 64;
constexpr int kMaxSplits = 8;
// A split shorter than this many K tiles spends more on its fp32 partial-tile reduction than it gains.
constexpr std::int64_t kMinKTilesPerSplit = 8;
// A last wave filled to at most this fraction leaves enough SMs idle for stream-K to pay, up to kMaxStreamKWaves.
constexpr double kStreamKTailFraction = 0.5;
constexpr double kMaxStreamKWaves = 8.0;
// The plain 128x256 kernel from this many waves of its tiles.
constexpr double kMinPlainWaves = 0.9;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::string_view decomposition_name(Decomposition decomposition) {
  switch (decomposition) {
    case Decomposition::kDataParallel: return "data-parallel";
    case Decomposition::kSplitK: return "split-k";
    case Decomposition::kStreamK: return "stream-k";
  }
  return "unknown";
}

std::string_view kernel_name(ProjectionKernel kernel) {
  switch (kernel) {
    case ProjectionKernel::kCooperative128x128: return "coop-128x128";
    case ProjectionKernel::kPingpong128x128: return "pingpong-128x128";
    case ProjectionKernel::kPingpong64x128: return "pingpong-64x128";
    case ProjectionKernel::kPlainCooperative128x256: return "plain-coop-128x256-c2x1";
  }
  return "unknown";
}

KernelTile kernel_tile(ProjectionKernel kernel) {
  KernelTile tile;
  switch (kernel) {
    case ProjectionKernel::kCooperative128x128: break;
    case ProjectionKernel::kPingpong128x128: tile.data_parallel_only = true; break;
    case ProjectionKernel::kPingpong64x128:
      tile.block_m = 64;
      tile.data_parallel_only = true;
      break;
    case ProjectionKernel::kPlainCooperative128x256:
      tile.block_n = 256;
      tile.data_parallel_only = true;
      tile.plain_output_only = true;
      break;
  }
  return tile;
}

void check_projection_shape(const ProjectionShape& shape) {
  if (shape.rows < 1 || shape.groups < 1 || shape.groups > 2) {
    throw UsageError("projection GEMM: rows must be >= 1 and groups 1 or 2 (got rows=" + std::to_string(shape.rows) +
                     ", groups=" + std::to_string(shape.groups) + ")");
  }
  if (shape.out_features < kHeadColumns || shape.out_features % kHeadColumns != 0) {
    throw UsageError("projection GEMM: out_features=" + std::to_string(shape.out_features) +
                     " must be a positive multiple of " + std::to_string(kHeadColumns) + " (whole heads)");
  }
  if (shape.in_features < kBlockK || shape.in_features % kBlockK != 0) {
    throw UsageError("projection GEMM: in_features=" + std::to_string(shape.in_features) +
                     " must be a positive multiple of " + std::to_string(kBlockK));
  }
}

void check_projection_plan(const ProjectionPlan& plan, const ProjectionShape& shape, OutputWork work) {
  check_projection_shape(shape);
  const KernelTile tile = kernel_tile(plan.kernel);
  if (tile.plain_output_only && (work != OutputWork::kPlain || shape.groups != 1)) {
    throw UsageError(std::string("projection GEMM: the ") + std::string(kernel_name(plan.kernel)) +
                     " kernel writes the plain product of one group; this launch needs bias, RoPE or a scale, or "
                     "has two groups");
  }
  if (tile.data_parallel_only && plan.decomposition != Decomposition::kDataParallel) {
    throw UsageError(std::string("projection GEMM: the ") + std::string(kernel_name(plan.kernel)) +
                     " kernel runs data-parallel plans only, not " +
                     std::string(decomposition_name(plan.decomposition)));
  }
  if (plan.splits < 1 || (plan.decomposition != Decomposition::kSplitK && plan.splits != 1)) {
    throw UsageError("projection GEMM: splits=" + std::to_string(plan.splits) + " needs a split-K plan");
  }
  if (plan.swizzle != 1 && plan.swizzle != 2 && plan.swizzle != 4 && plan.swizzle != 8) {
    throw UsageError("projection GEMM: swizzle=" + std::to_string(plan.swizzle) + " must be 1, 2, 4 or 8");
  }
}

ProjectionPlan make_plan(const ProjectionShape& shape, ProjectionKernel kernel, Decomposition decomposition,
                         int splits) {
  const KernelTile tile = kernel_tile(kernel);
  ProjectionPlan plan;
  plan.kernel = kernel;
  plan.decomposition = decomposition;
  plan.splits = splits;
  plan.output_tiles = ceil_div(shape.rows, tile.block_m) * ceil_div(shape.out_features, tile.block_n) * shape.groups;
  plan.k_tiles = shape.in_features / tile.block_k;
  return plan;
}

ProjectionPlan plan_projection(const ProjectionShape& shape, int sm_count, OutputWork work) {
  check_projection_shape(shape);
  if (sm_count < 1) throw UsageError("projection GEMM: sm_count must be >= 1, got " + std::to_string(sm_count));

  if (work == OutputWork::kPlain && shape.groups == 1) {
    const ProjectionPlan wide =
        make_plan(shape, ProjectionKernel::kPlainCooperative128x256, Decomposition::kDataParallel);
    const double waves = static_cast<double>(wide.output_tiles) / sm_count;
    const double tail = waves - static_cast<double>(wide.output_tiles / sm_count);
    // p14 measured it at or under the fused kernels from ~one wave of its tiles (O at 1024 rows: 47.2 us against
    // 50.7), except where a thin last wave idles most SMs (2164 rows: 141.6 against stream-K's 120.5).
    if (waves >= kMinPlainWaves && (tail == 0.0 || tail > kStreamKTailFraction || waves >= kMaxStreamKWaves)) {
      return wide;
    }
  }

  ProjectionPlan plan = make_plan(shape, ProjectionKernel::kCooperative128x128, Decomposition::kDataParallel);
  const ProjectionPlan small_tiles = make_plan(shape, ProjectionKernel::kPingpong64x128, Decomposition::kDataParallel);
  // Even 64-row tiles fill at most half the SMs: split K.
  if (small_tiles.output_tiles * 2 <= sm_count) {
    const std::int64_t by_sms = sm_count / plan.output_tiles;
    const std::int64_t by_depth = plan.k_tiles / kMinKTilesPerSplit;
    const int splits = static_cast<int>(std::min<std::int64_t>({by_sms, by_depth, kMaxSplits}));
    if (splits >= 2) {
      plan.decomposition = Decomposition::kSplitK;
      plan.splits = splits;
      return plan;
    }
  }
  // One wave of 64-row tiles: every SM busy for the whole K, no split-K workspace reset or reduction (p9: Q at 256
  // rows 25.8 us against 29.8 with split-K 2).
  if (small_tiles.output_tiles <= sm_count) return small_tiles;
  const double waves = static_cast<double>(plan.output_tiles) / sm_count;
  const double tail = waves - static_cast<double>(plan.output_tiles / sm_count);
  // One 128-row tile per CTA at most: ping-pong leaves its second consumer warpgroup idle, yet since every thread
  // of the epilogue takes part in every pass (p11) it beats the cooperative kernel there (Q and O at 512 rows:
  // 31.8-32.1 us against 33.4-34.1), so one wave goes to ping-pong like several.
  if (waves <= 1.0) return make_plan(shape, ProjectionKernel::kPingpong128x128, Decomposition::kDataParallel);
  if (waves < kMaxStreamKWaves && tail > 0.0 && tail <= kStreamKTailFraction) {
    plan.decomposition = Decomposition::kStreamK;
    return plan;
  }
  // Several tiles per CTA: ping-pong runs one tile's epilogue under the other warpgroup's mainloop.
  return make_plan(shape, ProjectionKernel::kPingpong128x128, Decomposition::kDataParallel);
}

bool plain_kernel_fills_one_wave(const ProjectionShape& shape, int sm_count) {
  const ProjectionKernel kernel = ProjectionKernel::kPlainCooperative128x256;
  const std::int64_t tiles = make_plan(shape, kernel, Decomposition::kDataParallel).output_tiles;
  const std::int64_t tiles_per_row = ceil_div(shape.out_features, kernel_tile(kernel).block_n) * shape.groups;
  return tiles <= sm_count && tiles + tiles_per_row > sm_count;
}

}  // namespace vlb::fused_b200
