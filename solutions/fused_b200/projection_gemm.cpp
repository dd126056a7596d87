#include "solutions/fused_b200/projection_gemm.hpp"

#include "harness/core/errors.hpp"
#include "harness/core/problem.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"
#include "solutions/fused_b200/projection_kernels.hpp"
#include "solutions/fused_b200/projection_kernels_sm100.hpp"

namespace vlb::fused_b200 {
namespace {

ProjectionShape stage_shape(std::int64_t rows, std::int64_t out_features, int groups) {
  return ProjectionShape{rows, out_features, ModelDims::kHidden, groups};
}

}  // namespace

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count,
                                       const std::optional<ProjectionPlan>& plan, OutputWork work) {
  check_projection_shape(shape);
  switch (current_kernel_architecture()) {
#if defined(VLBENCH_HAS_SM90)
    case KernelArchitecture::kSm90: return sm90::projection_workspace_bytes(shape, sm_count, plan, work);
#endif
#if defined(VLBENCH_HAS_SM100)
    case KernelArchitecture::kSm100:
      if (plan.has_value()) {
        throw UsageError("fused_b200 projection: a ProjectionPlan names sm90 kernels; leave it unset on Blackwell");
      }
      return sm100::projection_workspace_bytes(shape, sm_count, work);
#endif
    default: (void)sm_count, (void)plan, (void)work; return 0;
  }
}

OutputWork output_work(const ProjectionLaunch& launch) {
  for (int group = 0; group < launch.shape.groups; ++group) {
    const ProjectionOutput& output = launch.outputs[group];
    if (output.bias != nullptr || output.rope != RopeKind::kNone || output.scale != 1.0f) {
      return OutputWork::kFusedEpilogue;
    }
  }
  return OutputWork::kPlain;
}

void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream) {
  check_projection_shape(launch.shape);
  switch (current_kernel_architecture()) {
#if defined(VLBENCH_HAS_SM90)
    case KernelArchitecture::kSm90: sm90::launch_projection(launch, sm_count, workspace, stream); return;
#endif
#if defined(VLBENCH_HAS_SM100)
    case KernelArchitecture::kSm100: sm100::launch_projection(launch, sm_count, workspace, stream); return;
#endif
    default: (void)sm_count, (void)workspace, (void)stream; throw_no_kernel("projection");
  }
}

std::size_t q_projection_workspace_bytes(std::int64_t rows, int sm_count) {
  return projection_workspace_bytes(stage_shape(rows, ModelDims::kQProjDim, 1), sm_count);
}

void launch_q_projection(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight, const bf16* q_bias,
                         const std::int64_t* language_position_ids, float q_scale, bf16* q_out, int sm_count,
                         Workspace workspace, cudaStream_t stream, RopeArithmetic rope_arithmetic) {
  ProjectionLaunch launch;
  launch.activations = language_hidden;
  launch.shape = stage_shape(rows, ModelDims::kQProjDim, 1);
  launch.outputs[0] =
      ProjectionOutput{q_weight, q_bias, q_out, RopeKind::kLanguage, language_position_ids, q_scale, rope_arithmetic};
  launch_projection(launch, sm_count, workspace, stream);
}

std::size_t kv_projection_workspace_bytes(std::int64_t rows, int sm_count) {
  return projection_workspace_bytes(stage_shape(rows, ModelDims::kKvProjDim, 2), sm_count);
}

void launch_kv_projection(const bf16* vision_hidden, std::int64_t rows, const bf16* k_weight, const bf16* k_bias,
                          const bf16* v_weight, const bf16* v_bias, const std::int64_t* vision_grid_thw, bf16* k_out,
                          bf16* v_out, int sm_count, Workspace workspace, cudaStream_t stream,
                          RopeArithmetic rope_arithmetic, LaunchOrder order) {
  ProjectionLaunch launch;
  launch.order = order;
  launch.activations = vision_hidden;
  launch.shape = stage_shape(rows, ModelDims::kKvProjDim, 2);
  launch.outputs[0] =
      ProjectionOutput{k_weight, k_bias, k_out, RopeKind::kVision, vision_grid_thw, 1.0f, rope_arithmetic};
  launch.outputs[1] = ProjectionOutput{v_weight, v_bias, v_out, RopeKind::kNone, nullptr, 1.0f};
  launch_projection(launch, sm_count, workspace, stream);
}

std::size_t o_projection_workspace_bytes(std::int64_t rows, int sm_count) {
  return projection_workspace_bytes(stage_shape(rows, ModelDims::kHidden, 1), sm_count, std::nullopt,
                                    OutputWork::kPlain);
}

void launch_o_projection(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output, int sm_count,
                         Workspace workspace, cudaStream_t stream, LaunchOrder order) {
  ProjectionLaunch launch;
  launch.order = order;
  launch.activations = attention;
  launch.shape = stage_shape(rows, ModelDims::kHidden, 1);
  launch.outputs[0] = ProjectionOutput{o_weight, nullptr, output, RopeKind::kNone, nullptr, 1.0f};
  launch_projection(launch, sm_count, workspace, stream);
}

}  // namespace vlb::fused_b200
