// The sm100a projection launcher: orders the groups by weight address (projection_groups.hpp), runs the GEMM on the
// planned tile (projection_plan_sm100.hpp), and for outputs with bias, RoPE or a scale stages the fp32 accumulators
// in the workspace for the staged epilogue kernel (projection_staged_epilogue.hpp). No CUTLASS kernel is
// instantiated here.
//
// Workspace: [fp32 staging, 256-byte aligned][CUTLASS's own workspace].
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/projection_groups.hpp"
#include "solutions/fused_b200/projection_kernels_sm100.hpp"
#include "solutions/fused_b200/projection_staged_epilogue.hpp"

namespace vlb::fused_b200::sm100 {
namespace {

GemmLaunch gemm_launch(const bf16* activations, const ProjectionShape& shape, int groups) {
  GemmLaunch gemm;
  gemm.activations = activations;
  gemm.rows = shape.rows;
  gemm.out_features = shape.out_features;
  gemm.in_features = shape.in_features;
  gemm.groups = groups;
  gemm.weight_group_stride = shape.out_features * shape.in_features;  // a valid stride where L = 1
  gemm.output_group_stride = shape.rows * shape.out_features;
  return gemm;
}

// The instantiation for a tile and the kind of output: fp32 accumulators (staged) or bf16 (plain).
std::size_t gemm_workspace_bytes(Sm100Tile tile, OutputWork work, const GemmLaunch& gemm, int sm_count) {
  const bool two_sm = tile == Sm100Tile::kTwoSm256x128;
  if (work == OutputWork::kPlain) {
    return two_sm ? plain_2sm_workspace_bytes(gemm, sm_count) : plain_1sm_workspace_bytes(gemm, sm_count);
  }
  return two_sm ? staged_2sm_workspace_bytes(gemm, sm_count) : staged_1sm_workspace_bytes(gemm, sm_count);
}

void run_gemm(Sm100Tile tile, OutputWork work, const GemmLaunch& gemm, int sm_count, Workspace workspace,
              cudaStream_t stream) {
  const bool two_sm = tile == Sm100Tile::kTwoSm256x128;
  if (work == OutputWork::kPlain) {
    return two_sm ? run_plain_2sm(gemm, sm_count, workspace, stream) : run_plain_1sm(gemm, sm_count, workspace, stream);
  }
  return two_sm ? run_staged_2sm(gemm, sm_count, workspace, stream) : run_staged_1sm(gemm, sm_count, workspace, stream);
}

Workspace after(Workspace workspace, std::size_t bytes) {
  return Workspace{static_cast<char*>(workspace.data) + bytes, workspace.bytes - bytes};
}

void run_plain(const ProjectionLaunch& launch, const ProjectionOutput* ordered, Sm100Tile tile, int sm_count,
               Workspace workspace, cudaStream_t stream) {
  for (int group = 0; group < launch.shape.groups; ++group) {
    GemmLaunch gemm = gemm_launch(launch.activations, launch.shape, 1);
    gemm.weights = ordered[group].weight;
    gemm.output = ordered[group].output;
    run_gemm(tile, OutputWork::kPlain, gemm, sm_count, workspace, stream);
  }
}

void run_staged(const ProjectionLaunch& launch, const ProjectionOutput* ordered, const GroupedWeights& grouped,
                Sm100Tile tile, int sm_count, Workspace workspace, cudaStream_t stream) {
  const ProjectionShape& shape = launch.shape;
  const std::size_t staging_bytes = sm100_staging_bytes(shape, OutputWork::kFusedEpilogue);
  if (workspace.bytes < staging_bytes) {
    throw UsageError("fused_b200 sm100 projection: workspace of " + std::to_string(workspace.bytes) +
                     " bytes cannot hold the " + std::to_string(staging_bytes) +
                     " bytes of fp32 accumulators; size it with projection_workspace_bytes()");
  }
  auto* staging = static_cast<float*>(workspace.data);
  const Workspace gemm_workspace = after(workspace, staging_bytes);
  if (grouped.one_launch) {
    GemmLaunch gemm = gemm_launch(launch.activations, shape, shape.groups);
    gemm.weights = ordered[0].weight;
    gemm.weight_group_stride = grouped.group_stride;
    gemm.output = staging;
    run_gemm(tile, OutputWork::kFusedEpilogue, gemm, sm_count, gemm_workspace, stream);
  } else {
    for (int group = 0; group < shape.groups; ++group) {
      GemmLaunch gemm = gemm_launch(launch.activations, shape, 1);
      gemm.weights = ordered[group].weight;
      gemm.output = staging + group * shape.rows * shape.out_features;
      run_gemm(tile, OutputWork::kFusedEpilogue, gemm, sm_count, gemm_workspace, stream);
    }
  }
  launch_staged_epilogue(staging, shape, ordered, stream);
}

}  // namespace

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count, OutputWork work) {
  const Sm100Tile tile = plan_sm100_projection(shape, sm_count);
  std::size_t gemm_bytes = gemm_workspace_bytes(tile, work, gemm_launch(nullptr, shape, 1), sm_count);
  if (shape.groups > 1 && work == OutputWork::kFusedEpilogue) {  // the one-launch form
    gemm_bytes = std::max(gemm_bytes, gemm_workspace_bytes(tile, work, gemm_launch(nullptr, shape, shape.groups),
                                                           sm_count));
  }
  return sm100_staging_bytes(shape, work) + gemm_bytes;
}

void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream) {
  if (launch.plan.has_value()) {
    throw UsageError("fused_b200 sm100 projection: a ProjectionPlan names sm90 kernels; leave launch.plan unset on "
                     "Blackwell (the sm100 tile is chosen by plan_sm100_projection)");
  }
  const Sm100Tile tile = plan_sm100_projection(launch.shape, sm_count);
  const GroupedWeights grouped = group_weights(launch);
  ProjectionOutput ordered[2] = {launch.outputs[0], launch.outputs[1]};
  if (grouped.swapped) std::swap(ordered[0], ordered[1]);
  if (output_work(launch) == OutputWork::kPlain) {
    run_plain(launch, ordered, tile, sm_count, workspace, stream);
  } else {
    run_staged(launch, ordered, grouped, tile, sm_count, workspace, stream);
  }
}

}  // namespace vlb::fused_b200::sm100
