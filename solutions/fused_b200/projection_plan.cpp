#include "solutions/fused_b200/projection_plan.hpp"

#include <algorithm>
#include <string>

#include "harness/core/errors.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr int kMaxSplits = 8;
// A split shorter than this many K tiles spends more on its fp32 partial-tile reduction than it gains.
constexpr std::int64_t kMinKTilesPerSplit = 8;
// A last wave filled to at most this fraction leaves enough SMs idle for stream-K to pay, up to kMaxStreamKWaves.
constexpr double kStreamKTailFraction = 0.5;
constexpr double kMaxStreamKWaves = 8.0;

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

std::string_view schedule_name(MainloopSchedule schedule) {
  return schedule == MainloopSchedule::kPingpong ? "pingpong" : "cooperative";
}

void check_projection_plan(const ProjectionPlan& plan) {
  if (plan.schedule == MainloopSchedule::kPingpong && plan.decomposition != Decomposition::kDataParallel) {
    throw UsageError(std::string("projection GEMM: the ping-pong kernel runs data-parallel plans only, not ") +
                     std::string(decomposition_name(plan.decomposition)));
  }
  if (plan.splits < 1 || (plan.decomposition != Decomposition::kSplitK && plan.splits != 1)) {
    throw UsageError("projection GEMM: splits=" + std::to_string(plan.splits) + " needs a split-K plan");
  }
}

void check_projection_shape(const ProjectionShape& shape) {
  if (shape.rows < 1 || shape.groups < 1 || shape.groups > 2) {
    throw UsageError("projection GEMM: rows must be >= 1 and groups 1 or 2 (got rows=" + std::to_string(shape.rows) +
                     ", groups=" + std::to_string(shape.groups) + ")");
  }
  if (shape.out_features < ProjectionTile::kBlockN || shape.out_features % ProjectionTile::kBlockN != 0) {
    throw UsageError("projection GEMM: out_features=" + std::to_string(shape.out_features) +
                     " must be a positive multiple of " + std::to_string(ProjectionTile::kBlockN) +
                     " (one N tile per head)");
  }
  if (shape.in_features < ProjectionTile::kBlockK || shape.in_features % ProjectionTile::kBlockK != 0) {
    throw UsageError("projection GEMM: in_features=" + std::to_string(shape.in_features) +
                     " must be a positive multiple of " + std::to_string(ProjectionTile::kBlockK));
  }
}

ProjectionPlan plan_projection(const ProjectionShape& shape, int sm_count) {
  check_projection_shape(shape);
  if (sm_count < 1) throw UsageError("projection GEMM: sm_count must be >= 1, got " + std::to_string(sm_count));

  ProjectionPlan plan;
  plan.output_tiles = ceil_div(shape.rows, ProjectionTile::kBlockM) * (shape.out_features / ProjectionTile::kBlockN) *
                      shape.groups;
  plan.k_tiles = shape.in_features / ProjectionTile::kBlockK;

  if (plan.output_tiles * 2 <= sm_count) {
    const std::int64_t by_sms = sm_count / plan.output_tiles;
    const std::int64_t by_depth = plan.k_tiles / kMinKTilesPerSplit;
    const int splits = static_cast<int>(std::min<std::int64_t>({by_sms, by_depth, kMaxSplits}));
    if (splits >= 2) {
      plan.decomposition = Decomposition::kSplitK;
      plan.splits = splits;
      return plan;
    }
  }
  const double waves = static_cast<double>(plan.output_tiles) / sm_count;
  const double tail = waves - static_cast<double>(plan.output_tiles / sm_count);
  if (waves > 1.0 && waves < kMaxStreamKWaves && tail > 0.0 && tail <= kStreamKTailFraction) {
    plan.decomposition = Decomposition::kStreamK;
    return plan;
  }
  // Ping-pong hides the epilogue of one tile under the mainloop of the next; measured v2 (NOTES.md), it wins for
  // Q and O, while the two-group K/V launch runs faster cooperatively (e.g. 12544 rows: 377 vs 465 us).
  plan.schedule = shape.groups > 1 ? MainloopSchedule::kCooperative : MainloopSchedule::kPingpong;
  return plan;
}

}  // namespace vlb::fused_b200
