// GpuReference: the faithful stages composed, with Q, K, V and O in the solution workspace (O overwrites Q).
#include "reference/gpu_reference.hpp"

#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/core/cublas_handle.hpp"
#include "reference/gpu_stages.hpp"

namespace vlb::reference {

namespace {
using D = ModelDims;

struct WorkspaceLayout {
  std::size_t q_bytes, k_bytes, v_bytes, stage_bytes;
  std::size_t total() const { return q_bytes + k_bytes + v_bytes + stage_bytes; }
};

WorkspaceLayout layout_for(const ProblemShape& shape) {
  const auto q = static_cast<std::size_t>(shape.lang_rows() * D::kQProjDim) * sizeof(bf16);
  const auto kv = static_cast<std::size_t>(shape.vision_rows() * D::kKvProjDim) * sizeof(bf16);
  return {align_256(q), align_256(kv), align_256(kv), stage_workspace_bytes(shape)};
}
}  // namespace

struct GpuReference::Impl {
  CublasHandle cublas;
};

GpuReference::GpuReference() : impl_(new Impl) {}
GpuReference::~GpuReference() { delete impl_; }

SolutionInfo GpuReference::describe() {
  SolutionInfo info;
  info.name = "reference";
  info.author = "vlbench";
  info.description = "Faithful GPU reference: cuBLAS products, the reference's bf16 rounding points";
  return info;
}

std::size_t GpuReference::workspace_bytes(const ProblemShape& shape) const { return layout_for(shape).total(); }

void GpuReference::run(const FusionArgs& args) {
  const WorkspaceLayout layout = layout_for(args.shape);
  if (args.workspace == nullptr || args.workspace_bytes < layout.total()) {
    throw UsageError(fmt::format("solution 'reference' needs a workspace of {} bytes for {}, got {}", layout.total(),
                                 vlb::describe(args.shape), args.workspace_bytes));
  }
  char* base = static_cast<char*>(args.workspace);
  bf16* q_and_o = reinterpret_cast<bf16*>(base);
  bf16* k = reinterpret_cast<bf16*>(base + layout.q_bytes);
  bf16* v = reinterpret_cast<bf16*>(base + layout.q_bytes + layout.k_bytes);
  const StageContext ctx{impl_->cublas.get(), args.stream, base + layout.q_bytes + layout.k_bytes + layout.v_bytes,
                         layout.stage_bytes};
  faithful_q_stage(args.shape, args.inputs, q_and_o, ctx);
  faithful_kv_stage(args.shape, args.inputs, k, v, ctx);
  faithful_attention_stage(args.shape, q_and_o, k, v, q_and_o, ctx);
  faithful_output_stage(args.shape, q_and_o, args.inputs.o_proj_weight.data, args.output.data, ctx);
}

}  // namespace vlb::reference
