#pragma once
// The bias / RoPE / scale epilogue as a kernel of its own, for GEMMs that leave their results in memory: fp32
// accumulators (the Blackwell path: CUTLASS's sm100 GEMM writes them to the workspace; BLACKWELL.md), or bf16 values
// with their bias (the Hopper Q projection on cuBLAS, projection_cublas.hpp). Architecture-neutral CUDA,
// built for every target, with the math of epilogue_math.hpp in the order of the sm90 fused epilogue: x = acc + bias
// in fp32, rotate_pair with the output's RopeArithmetic, times scale, rounded to bf16 once.
#include <cuda_runtime.h>

#include "solutions/fused_b200/launch_order.hpp"
#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

// staged: [shape.groups][shape.rows][shape.out_features] fp32; outputs[g] receives group g as bf16
// [rows, out_features] (its weight pointer is not read). Throws UsageError for a shape no projection takes or a
// missing output or positions pointer. Enqueues one launch on `stream`; with LaunchOrder::kOverlapPrevious it is a
// programmatic dependent launch that reads `staged` only once the kernel before it has finished (its biases and
// positions before that: launch_order.hpp says when that is safe).
void launch_staged_epilogue(const float* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                            cudaStream_t stream, LaunchOrder order = LaunchOrder::kAfterPrevious);
// The same from bf16 values (a library GEMM's output: give an output a bias only where that GEMM left it out);
// `staged` may be outputs[0].output (one group), rotated in place.
void launch_staged_epilogue(const bf16* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                            cudaStream_t stream, LaunchOrder order = LaunchOrder::kAfterPrevious);

// The kernel launch_staged_epilogue runs for bf16 values: kTiles (a block's rows staged in shared memory with
// coalesced 16-byte accesses: K's pass after cuBLAS from 16384 rows, v18) for one group whose values and output are
// 16-byte aligned; kSlotWalk (a thread per rotary slot of a row, walking its heads in global memory) otherwise, and
// always for fp32 accumulators. Both give the same bits.
enum class StagedEpilogueKernel { kSlotWalk, kTiles };
StagedEpilogueKernel staged_epilogue_kernel_for(const bf16* staged, const ProjectionShape& shape,
                                                const ProjectionOutput* outputs);

}  // namespace vlb::fused_b200
