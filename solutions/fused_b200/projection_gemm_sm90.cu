// The sm90a projection launcher: orders the groups by weight address, picks one launch (the weights' distance as the
// L stride) or one per group, and runs the plan on its kernel's instantiation. No CUTLASS kernel is instantiated here.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "solutions/fused_b200/projection_groups.hpp"
#include "solutions/fused_b200/projection_kernels.hpp"

namespace vlb::fused_b200::sm90 {
namespace {

ProjectionPlan plan_for(const ProjectionShape& shape, int sm_count, const std::optional<ProjectionPlan>& chosen,
                        OutputWork work) {
  const ProjectionPlan plan = chosen.has_value() ? *chosen : plan_projection(shape, sm_count, work);
  check_projection_plan(plan, shape, work);
  return plan;
}

std::size_t workspace_bytes(const GemmLaunch& gemm, int sm_count) {
  switch (gemm.plan.kernel) {
    case ProjectionKernel::kCooperative128x128: return cooperative_128x128_workspace_bytes(gemm, sm_count);
    case ProjectionKernel::kPingpong128x128: return pingpong_128x128_workspace_bytes(gemm, sm_count);
    case ProjectionKernel::kPingpong64x128: return pingpong_64x128_workspace_bytes(gemm, sm_count);
    case ProjectionKernel::kPlainCooperative128x256: return plain_128x256_workspace_bytes(gemm, sm_count);
  }
  return 0;
}

// Whether the kernel's file defines CUTLASS_ENABLE_GDC_FOR_SM90, so that its producers wait for the previous kernel.
// Not the cooperative 128x128 one: CUTLASS 4.2's stream-K scheduler does not compile with it.
bool waits_for_previous_kernel(ProjectionKernel kernel) { return kernel != ProjectionKernel::kCooperative128x128; }

void run(GemmLaunch gemm, int sm_count, Workspace workspace, cudaStream_t stream) {
  if (!waits_for_previous_kernel(gemm.plan.kernel)) gemm.order = LaunchOrder::kAfterPrevious;
  switch (gemm.plan.kernel) {
    case ProjectionKernel::kCooperative128x128: return run_cooperative_128x128(gemm, sm_count, workspace, stream);
    case ProjectionKernel::kPingpong128x128: return run_pingpong_128x128(gemm, sm_count, workspace, stream);
    case ProjectionKernel::kPingpong64x128: return run_pingpong_64x128(gemm, sm_count, workspace, stream);
    case ProjectionKernel::kPlainCooperative128x256: return run_plain_128x256(gemm, sm_count, workspace, stream);
  }
}

GemmLaunch gemm_launch(const ProjectionLaunch& launch, const ProjectionOutput* outputs, int groups,
                       std::int64_t group_stride, int sm_count, OutputWork work) {
  GemmLaunch gemm;
  gemm.work = work;
  gemm.activations = launch.activations;
  gemm.shape = launch.shape;
  gemm.shape.groups = groups;
  gemm.outputs = outputs;
  gemm.group_stride = group_stride;
  gemm.plan = plan_for(gemm.shape, sm_count, launch.plan, work);
  gemm.order = launch.order;
  return gemm;
}

}  // namespace

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count,
                                       const std::optional<ProjectionPlan>& plan, OutputWork work) {
  ProjectionLaunch launch;
  launch.shape = shape;
  launch.plan = plan;
  const ProjectionOutput outputs[2] = {};
  const std::int64_t matrix_elements = shape.out_features * shape.in_features;
  std::size_t bytes =
      workspace_bytes(gemm_launch(launch, outputs, shape.groups, matrix_elements, sm_count, work), sm_count);
  if (shape.groups > 1) {  // the one-launch-per-group fallback
    bytes = std::max(bytes,
                     workspace_bytes(gemm_launch(launch, outputs, 1, matrix_elements, sm_count, work), sm_count));
  }
  return bytes;
}

void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream) {
  const OutputWork work = output_work(launch);
  const GroupedWeights grouped = group_weights(launch);
  ProjectionOutput ordered[2] = {launch.outputs[0], launch.outputs[1]};
  if (grouped.swapped) std::swap(ordered[0], ordered[1]);
  if (grouped.one_launch) {
    run(gemm_launch(launch, ordered, launch.shape.groups, grouped.group_stride, sm_count, work), sm_count, workspace,
        stream);
    return;
  }
  const std::int64_t matrix_elements = launch.shape.out_features * launch.shape.in_features;
  for (int group = 0; group < launch.shape.groups; ++group) {
    run(gemm_launch(launch, &ordered[group], 1, matrix_elements, sm_count, work), sm_count, workspace, stream);
  }
}

}  // namespace vlb::fused_b200::sm90
