#pragma once
// Projection GEMMs of the fused solution with their epilogues fused: Q (bias + 1D RoPE [+ softmax scale]),
// K and V in one launch (bias; sectioned 3D RoPE on K), O (plain). Architecture-neutral declarations: each call
// dispatches to the kernel built for the current device (sm90a today) and throws SystemError where none was built.
//
// Layouts: activations [rows, in_features] row-major; weights [out_features, in_features] row-major (out, in), read
// where they are; outputs [rows, out_features] row-major. All device pointers 16-byte aligned. All work is enqueued on
// `stream`; `workspace` (stream-K / split-K partials and flags) must hold the *_workspace_bytes of the same shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "solutions/fused_b200/epilogue_math.hpp"
#include "solutions/fused_b200/launch_order.hpp"
#include "solutions/fused_b200/projection_plan.hpp"

namespace vlb::fused_b200 {

using bf16 = __nv_bfloat16;

struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// One output of a projection launch.
struct ProjectionOutput {
  const bf16* weight = nullptr;              // [out_features, in_features]
  const bf16* bias = nullptr;                // [out_features] or nullptr
  bf16* output = nullptr;                    // [rows, out_features]
  RopeKind rope = RopeKind::kNone;
  const std::int64_t* positions = nullptr;   // kLanguage: [rows]; kVision: [rows, 3] (t, h, w)
  float scale = 1.0f;                        // applied after RoPE (softmax-scale folding)
  RopeArithmetic rope_arithmetic = RopeArithmetic::kFp32;
};

// One launch: shape.groups outputs of the same shape that share the activations.
struct ProjectionLaunch {
  const bf16* activations = nullptr;         // [rows, in_features]
  ProjectionShape shape;
  ProjectionOutput outputs[2];
  std::optional<ProjectionPlan> plan;        // unset: plan_projection(shape); set: this decomposition (benchmarks)
  LaunchOrder order = LaunchOrder::kAfterPrevious;
};

std::size_t projection_workspace_bytes(const ProjectionShape& shape, int sm_count,
                                       const std::optional<ProjectionPlan>& plan = std::nullopt,
                                       OutputWork work = OutputWork::kFusedEpilogue);
// kPlain when no output of the launch has a bias, RoPE or a scale other than 1.
OutputWork output_work(const ProjectionLaunch& launch);
void launch_projection(const ProjectionLaunch& launch, int sm_count, Workspace workspace, cudaStream_t stream);

// The three stages of the fused solution, on its tensors.
std::size_t q_projection_workspace_bytes(std::int64_t rows, int sm_count);
void launch_q_projection(const bf16* language_hidden, std::int64_t rows, const bf16* q_weight, const bf16* q_bias,
                         const std::int64_t* language_position_ids, float q_scale, bf16* q_out, int sm_count,
                         Workspace workspace, cudaStream_t stream,
                         RopeArithmetic rope_arithmetic = RopeArithmetic::kFp32);

std::size_t kv_projection_workspace_bytes(std::int64_t rows, int sm_count);
void launch_kv_projection(const bf16* vision_hidden, std::int64_t rows, const bf16* k_weight, const bf16* k_bias,
                          const bf16* v_weight, const bf16* v_bias, const std::int64_t* vision_grid_thw, bf16* k_out,
                          bf16* v_out, int sm_count, Workspace workspace, cudaStream_t stream,
                          RopeArithmetic rope_arithmetic = RopeArithmetic::kFp32,
                          LaunchOrder order = LaunchOrder::kAfterPrevious);

std::size_t o_projection_workspace_bytes(std::int64_t rows, int sm_count);
void launch_o_projection(const bf16* attention, std::int64_t rows, const bf16* o_weight, bf16* output, int sm_count,
                         Workspace workspace, cudaStream_t stream, LaunchOrder order = LaunchOrder::kAfterPrevious);

}  // namespace vlb::fused_b200
