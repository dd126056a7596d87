// The staged epilogue kernel (projection_staged_epilogue.hpp). A block takes 4 rows; a thread takes one rotary slot
// (the two columns of a head that share an angle) of one row and walks every head of the row with the same cos and
// sin, so the angle is computed once per (row, slot) as in the fused sm90 epilogue. V and O (no RoPE) pair column
// c with c + 64 only to share the walk.
#include "solutions/fused_b200/projection_staged_epilogue.hpp"

#include <cuda_bf16.h>

#include <cstdint>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/epilogue_math.hpp"

namespace vlb::fused_b200 {
namespace {

constexpr int kRowsPerBlock = 4;
constexpr int kThreads = kRowsPerBlock * kRotarySlots;
constexpr int kHeadBatch = 8;  // heads whose pairs a thread loads together (K has 8 heads, Q 32)

struct StagedGroup {
  __nv_bfloat16* output = nullptr;
  const __nv_bfloat16* bias = nullptr;
  const std::int64_t* positions = nullptr;
  int rope = static_cast<int>(RopeKind::kNone);
  RopeArithmetic arithmetic = RopeArithmetic::kFp32;
  float scale = 1.0f;
};

// Staged values: fp32 accumulators (the sm100 GEMM's), or bf16 values a library GEMM already rounded with its bias
// (the Hopper Q projection on cuBLAS), rotated in place.
__device__ float staged_value(float value) { return value; }
__device__ float staged_value(__nv_bfloat16 value) { return __bfloat162float(value); }

template <class Staged>
struct StagedParams {
  const Staged* staged = nullptr;
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  StagedGroup groups[2];
};

__device__ float bias_at(const StagedGroup& group, std::int64_t column) {
  return group.bias != nullptr ? __bfloat162float(group.bias[column]) : 0.0f;
}

// Launched LaunchOrder::kOverlapPrevious, the block may start before the kernel that wrote `staged` has finished:
// this waits for it (griddepcontrol.wait; at once in an ordinary launch). Biases and positions are read before.
__device__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// In place (staged == output, bf16) is safe: each thread reads the two values of its pair before it writes them, and
// no other thread touches them.
template <class Staged>
__global__ void __launch_bounds__(kThreads)
    staged_epilogue_kernel(const __grid_constant__ StagedParams<Staged> params) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kRotarySlots;
  if (row >= params.rows) return;
  const int slot = static_cast<int>(threadIdx.x % kRotarySlots);
  // A select, not a run-time index into the parameters, keeps the group out of local memory.
  const StagedGroup group = blockIdx.y == 0 ? params.groups[0] : params.groups[1];
  const Staged* accumulators =
      params.staged + (static_cast<std::int64_t>(blockIdx.y) * params.rows + row) * params.columns;
  __nv_bfloat16* output = group.output + row * params.columns;
  const std::int64_t heads = params.columns / kHeadDim;

  if (group.rope == static_cast<int>(RopeKind::kNone)) {
    wait_for_previous_kernel();
    for (std::int64_t head = 0; head < heads; ++head) {
      for (const std::int64_t column : {head * kHeadDim + slot, head * kHeadDim + slot + kRotarySlots}) {
        output[column] =
            __float2bfloat16_rn((staged_value(accumulators[column]) + bias_at(group, column)) * group.scale);
      }
    }
    return;
  }
  const bool language = group.rope == static_cast<int>(RopeKind::kLanguage);
  const RotaryPair pair = language ? language_slot_pair(slot) : vision_slot_pair(slot);
  const float position =
      static_cast<float>(language ? group.positions[row] : group.positions[row * 3 + pair.section]);
  float cos_value = 0.0f;
  float sin_value = 0.0f;
  rope_cos_sin(position * rope_inv_freq(pair.freq_index, pair.width), cos_value, sin_value);
  wait_for_previous_kernel();
  // kHeadBatch heads' pairs are loaded before any is stored: the stores may alias the loads (in place), so the
  // compiler could not move a later head's loads above them, and one pair in flight per thread is too few to stream.
  for (std::int64_t head0 = 0; head0 < heads; head0 += kHeadBatch) {
    float first_values[kHeadBatch];
    float second_values[kHeadBatch];
#pragma unroll
    for (int h = 0; h < kHeadBatch; ++h) {
      const std::int64_t base = (head0 + h) * kHeadDim;
      first_values[h] = head0 + h < heads ? staged_value(accumulators[base + pair.element]) : 0.0f;
      second_values[h] = head0 + h < heads ? staged_value(accumulators[base + pair.partner]) : 0.0f;
    }
#pragma unroll
    for (int h = 0; h < kHeadBatch; ++h) {
      if (head0 + h >= heads) break;
      const std::int64_t first = (head0 + h) * kHeadDim + pair.element;
      const std::int64_t second = (head0 + h) * kHeadDim + pair.partner;
      const RotatedPair rotated = rotate_pair(first_values[h] + bias_at(group, first),
                                              second_values[h] + bias_at(group, second), cos_value, sin_value,
                                              group.arithmetic);
      output[first] = __float2bfloat16_rn(rotated.first * group.scale);
      output[second] = __float2bfloat16_rn(rotated.second * group.scale);
    }
  }
}

StagedGroup staged_group(const ProjectionOutput& output, int index) {
  if (output.output == nullptr) {
    throw UsageError("fused_b200 staged epilogue: output " + std::to_string(index) + " has no destination");
  }
  if (output.rope != RopeKind::kNone && output.positions == nullptr) {
    throw UsageError("fused_b200 staged epilogue: output " + std::to_string(index) + " rotates without positions");
  }
  return StagedGroup{output.output, output.bias, output.positions, static_cast<int>(output.rope),
                     output.rope_arithmetic, output.scale};
}

template <class Staged>
void launch_staged(const Staged* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                   cudaStream_t stream, LaunchOrder order) {
  check_projection_shape(shape);
  StagedParams<Staged> params;
  params.staged = staged;
  params.rows = shape.rows;
  params.columns = shape.out_features;
  for (int group = 0; group < shape.groups; ++group) params.groups[group] = staged_group(outputs[group], group);
  const dim3 grid(static_cast<unsigned>((shape.rows + kRowsPerBlock - 1) / kRowsPerBlock),
                  static_cast<unsigned>(shape.groups));
  const OrderedLaunchConfig launch(grid, dim3(kThreads), 0, stream, order);
  VLB_CUDA_CHECK(cudaLaunchKernelEx(launch.get(), staged_epilogue_kernel<Staged>, params));
}

}  // namespace

void launch_staged_epilogue(const float* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                            cudaStream_t stream, LaunchOrder order) {
  launch_staged(staged, shape, outputs, stream, order);
}

void launch_staged_epilogue(const bf16* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                            cudaStream_t stream, LaunchOrder order) {
  launch_staged(staged, shape, outputs, stream, order);
}

}  // namespace vlb::fused_b200
