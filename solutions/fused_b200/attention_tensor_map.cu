#include "solutions/fused_b200/attention_tensor_map.hpp"

#include <cutlass/cuda_host_adapter.hpp>

#include <array>
#include <string>

#include "harness/core/errors.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"

namespace vlb::fused_b200 {

CUtensorMap make_head_tensor_map(const void* base, std::int64_t heads, std::int64_t tokens, std::int64_t batch,
                                 const HeadTensorBox& box, const char* name) {
  constexpr std::int64_t kElementBytes = 2;
  const std::array<cuuint64_t, 4> dims = {static_cast<cuuint64_t>(kHeadDim), static_cast<cuuint64_t>(heads),
                                          static_cast<cuuint64_t>(tokens), static_cast<cuuint64_t>(batch)};
  const std::array<cuuint64_t, 3> strides_bytes = {
      static_cast<cuuint64_t>(kHeadDim * kElementBytes), static_cast<cuuint64_t>(heads * kHeadDim * kElementBytes),
      static_cast<cuuint64_t>(tokens * heads * kHeadDim * kElementBytes)};
  const std::array<cuuint32_t, 4> box_extents = {box.columns, box.heads, box.tokens, 1};
  const std::array<cuuint32_t, 4> element_strides = {1, 1, 1, 1};
  CUtensorMap map{};
  const CUresult status = CUTLASS_CUDA_DRIVER_WRAPPER_CALL(cuTensorMapEncodeTiled)(
      &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 4, const_cast<void*>(base), dims.data(), strides_bytes.data(),
      box_extents.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    throw SystemError(std::string("fused_b200 attention: cuTensorMapEncodeTiled failed for ") + name + " (CUresult " +
                      std::to_string(static_cast<int>(status)) + ", heads " + std::to_string(heads) + ", tokens " +
                      std::to_string(tokens) + ", batch " + std::to_string(batch) + ")");
  }
  return map;
}

}  // namespace vlb::fused_b200
