// sm90a attention launcher: the kernel's TMA descriptors (4-D views of the projections' outputs), its shared memory
// and its persistent grid.
#include <cuda.h>

#include <cutlass/cuda_host_adapter.hpp>

#include <array>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/attention.hpp"
#include "solutions/fused_b200/attention_kernel_sm90.hpp"
#include "solutions/fused_b200/attention_kernels.hpp"

namespace vlb::fused_b200::sm90 {
namespace {

// 128 keys per block, two stages of K and V: 192 KB of shared memory with Q and the output's staging buffer. FA3
// takes 176 for head_dim 128; 112- and 144-key blocks, which pad the suite's Lv less, measured 10-50% slower (NOTES.md,
// v4).
using Config = AttentionConfig<128, 2>;

// A [head_dim, heads, tokens, batch] bf16 tensor (innermost first) with 128-byte swizzled boxes of 64 columns.
CUtensorMap make_tensor_map(const void* base, std::int64_t heads, std::int64_t tokens, std::int64_t batch,
                            std::uint32_t box_heads, std::uint32_t box_tokens, const char* name) {
  constexpr std::int64_t kElementBytes = 2;
  const std::array<cuuint64_t, 4> dims = {static_cast<cuuint64_t>(kHeadDim), static_cast<cuuint64_t>(heads),
                                          static_cast<cuuint64_t>(tokens), static_cast<cuuint64_t>(batch)};
  const std::array<cuuint64_t, 3> strides_bytes = {
      static_cast<cuuint64_t>(kHeadDim * kElementBytes), static_cast<cuuint64_t>(heads * kHeadDim * kElementBytes),
      static_cast<cuuint64_t>(tokens * heads * kHeadDim * kElementBytes)};
  const std::array<cuuint32_t, 4> box = {static_cast<cuuint32_t>(Config::kBoxColumns), box_heads, box_tokens, 1};
  const std::array<cuuint32_t, 4> element_strides = {1, 1, 1, 1};
  CUtensorMap map{};
  const CUresult status = CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, const_cast<void*>(base), dims.data(), strides_bytes.data(),
      box.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    throw SystemError(std::string("fused_b200 attention: cuTensorMapEncodeTiled failed for ") + name + " (CUresult " +
                      std::to_string(static_cast<int>(status)) + ", heads " + std::to_string(heads) + ", tokens " +
                      std::to_string(tokens) + ", batch " + std::to_string(batch) + ")");
  }
  return map;
}

AttentionParams make_params(const AttentionTensors& tensors, const AttentionShape& shape) {
  constexpr int block_n = Config::kBlockN;
  AttentionParams params;
  params.q = make_tensor_map(tensors.q, kQueryHeads, shape.lang_seq, shape.batch, kQueryHeadsPerKvHead,
                             kTokensPerTile, "Q");
  params.out = make_tensor_map(tensors.out, kQueryHeads, shape.lang_seq, shape.batch, kQueryHeadsPerKvHead,
                               Config::kRowsPerConsumer / kQueryHeadsPerKvHead, "the output");
  params.k = make_tensor_map(tensors.k, kKvHeads, shape.vision_seq, shape.batch, 1, block_n, "K");
  params.v = make_tensor_map(tensors.v, kKvHeads, shape.vision_seq, shape.batch, 1, block_n, "V");
  params.tiles = attention_tile_count(shape);
  params.token_blocks = attention_token_blocks(shape.lang_seq);
  params.kv_blocks = attention_kv_blocks(shape.vision_seq, block_n);
  params.valid_keys_in_last_block =
      static_cast<int>(shape.vision_seq - static_cast<std::int64_t>(params.kv_blocks - 1) * block_n);
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

}  // namespace vlb::fused_b200::sm90
