#include "harness/sol/speed_of_light.hpp"

#include <algorithm>

#include "harness/core/errors.hpp"

namespace vlb {
namespace {

// A measured latency below T_SOL by more than this fraction cannot be real (timer noise stays well inside it).
constexpr double kImplausibleSlack = 0.02;

}  // namespace

WorkCount count_work(const ProblemShape& shape) {
  const double batch = static_cast<double>(shape.batch);
  const double lang = static_cast<double>(shape.lang_seq);
  const double vision = static_cast<double>(shape.vision_seq);
  const double hidden = static_cast<double>(ModelDims::kHidden);
  const double q_dim = static_cast<double>(ModelDims::kQProjDim);
  const double kv_dim = static_cast<double>(ModelDims::kKvProjDim);
  const double heads = static_cast<double>(ModelDims::kNumHeads);
  const double head_dim = static_cast<double>(ModelDims::kHeadDim);

  WorkCount work;
  const double q_and_o_projections = 2 * batch * lang * hidden * q_dim;
  const double k_and_v_projections = 2 * batch * vision * hidden * kv_dim;
  const double scores_and_values = 2 * batch * heads * lang * vision * head_dim;
  work.macs = q_and_o_projections + k_and_v_projections + scores_and_values;
  work.flops = 2 * work.macs;
  for (const TensorSpec& tensor : tensor_specs(shape)) work.bytes += static_cast<double>(tensor.bytes());
  return work;
}

SolEstimate speed_of_light(const WorkCount& work, const GpuSpec& gpu) {
  if (gpu.dense_bf16_flops_per_s <= 0 || gpu.memory_bytes_per_s <= 0) {
    throw UsageError("GPU spec '" + gpu.key + "' needs positive compute and memory throughput for speed of light");
  }
  SolEstimate estimate;
  estimate.compute_ms = work.flops / gpu.dense_bf16_flops_per_s * 1e3;
  estimate.memory_ms = work.bytes / gpu.memory_bytes_per_s * 1e3;
  estimate.compute_bound = estimate.compute_ms >= estimate.memory_ms;
  estimate.t_sol_ms = std::max(estimate.compute_ms, estimate.memory_ms) + gpu.fixed_overhead_ms;
  return estimate;
}

double sol_fraction(double t_sol_ms, double latency_ms) {
  if (latency_ms <= 0) throw UsageError("speed-of-light fraction needs a positive latency");
  return t_sol_ms / latency_ms;
}

std::optional<double> leaderboard_score(double latency_ms, double t_sol_ms, double baseline_ms) {
  if (baseline_ms <= t_sol_ms) return std::nullopt;
  return 1.0 / (1.0 + (latency_ms - t_sol_ms) / (baseline_ms - t_sol_ms));
}

bool implausibly_fast(double latency_ms, double t_sol_ms) { return latency_ms < t_sol_ms * (1.0 - kImplausibleSlack); }

}  // namespace vlb
