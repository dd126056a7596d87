#include "solutions/fused_b200/fused_operation.hpp"

#include <algorithm>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr std::size_t kAlignment = 256;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// Each projection's GEMM workspace: cuBLAS's where the rules send it there, else our kernels'.
std::size_t q_projection_workspace(std::int64_t rows, int sm_count, KernelArchitecture architecture) {
  return q_projection_on_cublas(rows, architecture) ? CublasProjections::workspace_bytes()
                                                    : q_projection_workspace_bytes(rows, sm_count);
}

std::size_t kv_projection_workspace(std::int64_t rows, int sm_count, KernelArchitecture architecture) {
  return kv_projection_on_cublas(rows, architecture) ? CublasProjections::workspace_bytes()
                                                     : kv_projection_workspace_bytes(rows, sm_count);
}

std::size_t o_projection_workspace(std::int64_t rows, int sm_count, KernelArchitecture architecture) {
  return o_projection_on_cublas(rows, sm_count, architecture) ? CublasProjections::workspace_bytes()
                                                              : o_projection_workspace_bytes(rows, sm_count);
}

AttentionShape attention_shape(const ProblemShape& shape) {
  return AttentionShape{shape.batch, shape.lang_seq, shape.vision_seq};
}

// One device query per call (carve runs inside every run()), not one per projection.
struct WorkspaceSizes {
  std::size_t q, kv, attention, q_and_o_gemm, kv_gemm, attention_split;

  WorkspaceSizes(const ProblemShape& shape, int sm_count,
                 KernelArchitecture architecture = current_kernel_architecture())
      : q(aligned(sizeof(bf16) * shape.lang_rows() * ModelDims::kQProjDim)),
        kv(aligned(sizeof(bf16) * shape.vision_rows() * ModelDims::kKvProjDim)),
        attention(q),
        q_and_o_gemm(aligned(std::max(q_projection_workspace(shape.lang_rows(), sm_count, architecture),
                                      o_projection_workspace(shape.lang_rows(), sm_count, architecture)))),
        kv_gemm(aligned(kv_projection_workspace(shape.vision_rows(), sm_count, architecture))),
        attention_split(aligned(attention_split_workspace_bytes(attention_shape(shape), sm_count, architecture))) {}

  std::size_t total() const {
    return q + 2 * kv + attention + q_and_o_gemm + kv_gemm + attention_split;
  }
};

}  // namespace

KvBiasPlacement kv_bias_placement(std::int64_t vision_seq) {
  return vision_seq < kFewKeys ? KvBiasPlacement::kGemmOnly : KvBiasPlacement::kGemmWherePossible;
}

bool attention_rotates_q(const ProblemShape& shape) {
  return q_projection_on_cublas(shape.lang_rows(), current_kernel_architecture());
}

std::size_t FusedWorkspace::bytes(const ProblemShape& shape, int sm_count) {
  return WorkspaceSizes(shape, sm_count).total();
}

KvSlotOrder kv_slot_order(const FusionInputs& inputs) {
  return kv_batch_starts_with_v(inputs.k_proj_weight.data, inputs.v_proj_weight.data) ? KvSlotOrder::kVFirst
                                                                                       : KvSlotOrder::kKFirst;
}

FusedWorkspace FusedWorkspace::carve(void* base, std::size_t bytes, const ProblemShape& shape, int sm_count,
                                     KvSlotOrder order) {
  const WorkspaceSizes sizes(shape, sm_count);
  if (bytes < sizes.total()) {
    throw UsageError("fused_b200: workspace of " + std::to_string(bytes) + " bytes is smaller than the " +
                     std::to_string(sizes.total()) + " bytes workspace_bytes() asked for " + describe(shape));
  }
  auto* cursor = static_cast<char*>(base);
  auto take = [&cursor](std::size_t size) {
    char* piece = cursor;
    cursor += size;
    return piece;
  };
  FusedWorkspace workspace;
  workspace.q = reinterpret_cast<bf16*>(take(sizes.q));
  bf16* first_kv = reinterpret_cast<bf16*>(take(sizes.kv));
  bf16* second_kv = reinterpret_cast<bf16*>(take(sizes.kv));
  workspace.k = order == KvSlotOrder::kKFirst ? first_kv : second_kv;
  workspace.v = order == KvSlotOrder::kKFirst ? second_kv : first_kv;
  workspace.attention = reinterpret_cast<bf16*>(take(sizes.attention));
  workspace.q_and_o_gemm = Workspace{take(sizes.q_and_o_gemm), sizes.q_and_o_gemm};
  workspace.kv_gemm = Workspace{take(sizes.kv_gemm), sizes.kv_gemm};
  if (sizes.attention_split > 0) workspace.attention_split = AttentionSplitWorkspace{take(sizes.attention_split),
                                                                                     sizes.attention_split};
  return workspace;
}

void FusedOperation::run(const FusionArgs& args, const StageEvents* events) const {
  const ProblemShape& shape = args.shape;
  const FusionInputs& in = args.inputs;
  const FusedWorkspace ws =
      FusedWorkspace::carve(args.workspace, args.workspace_bytes, shape, sm_count_, kv_slot_order(in));
  cudaStream_t stream = args.stream;
  auto mark = [&](FusedStage stage) {
    if (events != nullptr) VLB_CUDA_CHECK(cudaEventRecord(events->after[static_cast<int>(stage)], stream));
  };
  if (events != nullptr) VLB_CUDA_CHECK(cudaEventRecord(events->start, stream));
  // Q starts after the caller's work (it wrote the inputs); each later kernel overlaps its launch with the end of the
  // one before (launch_order.hpp), unless events sit between them.
  const LaunchOrder later = events == nullptr ? LaunchOrder::kOverlapPrevious : LaunchOrder::kAfterPrevious;
  const KernelArchitecture architecture = current_kernel_architecture();
  const AttentionShape attention = attention_shape(shape);
  // The split attention's flags, zeroed first: the workspace comes scrambled, and here the memset delays only Q.
  clear_attention_split(ws.attention_split, attention, sm_count_, stream);

  // On cuBLAS, Q leaves its GEMM unrotated and the attention rotates it (attention_rotates_q).
  const bool q_on_cublas = q_projection_on_cublas(shape.lang_rows(), architecture);
  if (q_on_cublas) {
    cublas_.project_q(in.language_hidden_states.data, shape.lang_rows(), in.q_proj_weight.data, in.q_proj_bias.data,
                      ws.q, ws.q_and_o_gemm, stream);
  } else {
    launch_q_projection(in.language_hidden_states.data, shape.lang_rows(), in.q_proj_weight.data,
                        in.q_proj_bias.data, in.language_position_ids.data, 1.0f, ws.q, sm_count_, ws.q_and_o_gemm,
                        stream, numerics_.rope);
  }
  mark(FusedStage::kProjectQ);
  AttentionBiases attention_biases;
  if (kv_projection_on_cublas(shape.vision_rows(), architecture)) {
    const KvGemms kv = cublas_.project_kv(in.vision_hidden_states.data, shape.vision_rows(), in.k_proj_weight.data,
                                          in.k_proj_bias.data, in.v_proj_weight.data, in.v_proj_bias.data,
                                          in.vision_grid_thw.data, ws.k, ws.v, ws.kv_gemm, stream, numerics_.rope,
                                          later, kv_bias_placement(shape.vision_seq));
    if (kv == KvGemms::kBatchedBiasesAfter) attention_biases.v = in.v_proj_bias.data;
  } else {
    launch_kv_projection(in.vision_hidden_states.data, shape.vision_rows(), in.k_proj_weight.data,
                         in.k_proj_bias.data, in.v_proj_weight.data, in.v_proj_bias.data, in.vision_grid_thw.data,
                         ws.k, ws.v, sm_count_, ws.kv_gemm, stream, numerics_.rope, later);
  }
  mark(FusedStage::kProjectKv);
  const AttentionQueryRope q_rope{q_on_cublas ? in.language_position_ids.data : nullptr, numerics_.rope};
  launch_attention(AttentionTensors{ws.q, ws.k, ws.v, ws.attention, q_rope, attention_biases}, attention, sm_count_,
                   stream, later, ws.attention_split);
  mark(FusedStage::kAttention);
  if (o_projection_on_cublas(shape.lang_rows(), sm_count_, architecture)) {
    cublas_.project_o(ws.attention, shape.lang_rows(), in.o_proj_weight.data, args.output.data, ws.q_and_o_gemm,
                      stream);
  } else {
    launch_o_projection(ws.attention, shape.lang_rows(), in.o_proj_weight.data, args.output.data, sm_count_,
                        ws.q_and_o_gemm, stream, later);
  }
  mark(FusedStage::kProjectO);
}

}  // namespace vlb::fused_b200
