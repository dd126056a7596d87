// sm100a attention launcher: the kernel's TMA descriptors (4-D views of the projections' outputs), its shared memory
// and its persistent grid (one CTA per SM at most: the CTA holds 192 KiB of shared memory and all 512 columns of
// tensor memory).
#include <cuda.h>

#include "harness/core/cuda_check.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/attention_kernel_sm100.hpp"
#include "solutions/fused_b200/attention_kernels.hpp"
#include "solutions/fused_b200/attention_tensor_map.hpp"

namespace vlb::fused_b200::sm100 {
namespace {

using Config = AttentionConfig;

AttentionParams make_params(const AttentionTensors& tensors, const AttentionShape& shape) {
  constexpr int block_n = Config::kBlockN;
  constexpr auto columns = static_cast<std::uint32_t>(Config::kBoxColumns);
  AttentionParams params;
  params.q = make_head_tensor_map(tensors.q, kQueryHeads, shape.lang_seq, shape.batch,
                                  HeadTensorBox{columns, kQueryHeadsPerKvHead, kTokensPerTile}, "Q");
  params.k = make_head_tensor_map(tensors.k, kKvHeads, shape.vision_seq, shape.batch,
                                  HeadTensorBox{columns, 1, block_n}, "K");
  params.v = make_head_tensor_map(tensors.v, kKvHeads, shape.vision_seq, shape.batch,
                                  HeadTensorBox{columns, 1, block_n}, "V");
  params.out = tensors.out;
  params.lang_seq = shape.lang_seq;
  params.walk = attention_walk(shape, block_n);
  return params;
}

}  // namespace

void launch_attention(const AttentionTensors& tensors, const AttentionShape& shape, int sm_count,
                      cudaStream_t stream) {
  const AttentionParams params = make_params(tensors, shape);
  auto* kernel = &attention_kernel<Config>;
  VLB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Config::kSharedBytes));
  kernel<<<attention_grid_size(shape, sm_count), Config::kThreads, Config::kSharedBytes, stream>>>(params);
  VLB_CHECK_LAUNCH();
}

}  // namespace vlb::fused_b200::sm100
