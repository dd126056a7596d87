// The staged epilogue kernels (projection_staged_epilogue.hpp).
// - staged_epilogue_kernel, for fp32 accumulators (and bf16 values the tiled kernel does not take): a block takes 4
//   rows; a thread takes one rotary slot (the two columns of a head that share an angle) of one row and walks every
//   head of the row with the same cos and sin, so the angle is computed once per (row, slot) as in the fused sm90
//   epilogue. V and O (no RoPE) pair column c with c + 64 only to share the walk.
// - tiled_epilogue_kernel, for bf16 values (K's pass after cuBLAS, in place): the same walk on a block's rows staged
//   in shared memory, read and written with coalesced 16-byte accesses.
#include "solutions/fused_b200/projection_staged_epilogue.hpp"

#include <cuda_bf16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"
#include "solutions/fused_b200/alignment.hpp"
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

// A bias is an input, read after the wait below by the tiled kernel: its cache lines are asked into L1 before it, one
// per thread, so that those reads hit (K's bias from 16384 rows where cuBLAS's GEMM left it out: v24).
__device__ void prefetch_bias(const StagedGroup& group, std::int64_t columns) {
  constexpr int kLineElements = 128 / sizeof(__nv_bfloat16);
  if (group.bias != nullptr && threadIdx.x * kLineElements < columns) {
    asm volatile("prefetch.global.L1 [%0];" ::"l"(group.bias + threadIdx.x * kLineElements));
  }
}

// Launched LaunchOrder::kOverlapPrevious, the block may start before the kernel that wrote `staged` has finished:
// this waits for it (griddepcontrol.wait; at once in an ordinary launch). Biases and positions are read before.
__device__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

// One thread's biases for kHeadBatch heads' pairs (zero without a bias), loaded together under one uniform choice.
struct BiasBatch {
  float first[kHeadBatch] = {};
  float second[kHeadBatch] = {};

  __device__ void load(const StagedGroup& group, std::int64_t head0, std::int64_t heads, const RotaryPair& pair) {
    if (group.bias == nullptr) return;
#pragma unroll
    for (int h = 0; h < kHeadBatch; ++h) {
      const std::int64_t base = (head0 + h) * kHeadDim;
      first[h] = head0 + h < heads ? __bfloat162float(group.bias[base + pair.element]) : 0.0f;
      second[h] = head0 + h < heads ? __bfloat162float(group.bias[base + pair.partner]) : 0.0f;
    }
  }
};

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
  // The biases are inputs: the first kHeadBatch heads' (all of K's) are loaded before the wait.
  BiasBatch bias;
  bias.load(group, 0, heads, pair);
  wait_for_previous_kernel();
  // kHeadBatch heads' pairs are loaded before any is stored: the stores may alias the loads (in place, and for all
  // the compiler knows the biases), so it could not move a later head's loads above them, and one pair in flight per
  // thread is too few to stream. v24: K's biases read beside the stores cost its pass 1.9 us at 1568 rows, and read
  // inside this loop under a per-element choice, 3.5 us (the loads no longer went out together).
  for (std::int64_t head0 = 0; head0 < heads; head0 += kHeadBatch) {
    if (head0 > 0) bias.load(group, head0, heads, pair);
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
      const RotatedPair rotated = rotate_pair(first_values[h] + bias.first[h], second_values[h] + bias.second[h],
                                              cos_value, sin_value, group.arithmetic);
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

// ---- tiled_epilogue_kernel ----

constexpr int kTileThreads = 256;
constexpr int kTileBytes = 32 * 1024;  // a block's rows: 16 of K (1024 columns), 4 of Q (4096)
constexpr int kTileChunks = kTileBytes / 16;
constexpr int kChunksPerThread = kTileChunks / kTileThreads;
constexpr int kMaxUnitsPerThread = 4;  // (row, slot) units: 16 rows x 64 slots over 256 threads

struct TileParams {
  const __nv_bfloat16* staged = nullptr;
  std::int64_t rows = 0;
  int columns = 0;
  StagedGroup group;
};

// Rows a tile holds (takes_tiles keeps them a whole multiple of 4, so that the (row, slot) units split evenly).
__host__ __device__ constexpr int tile_rows(std::int64_t columns) {
  return static_cast<int>(kTileBytes / (columns * static_cast<std::int64_t>(sizeof(__nv_bfloat16))));
}

// bf16 rows through shared memory: the block's rows in with 16-byte loads, each consecutive in a warp (a warp's load
// is 512 contiguous bytes), the slot walk on them in shared memory (the same math on the same floats as
// staged_epilogue_kernel, so the same bits), and out with 16-byte stores. Angles are computed before the wait for the
// previous kernel (positions are inputs); a thread's units share its slot, so one inverse frequency serves them.
// v18: a thread per head row instead (256 contiguous bytes each, 16 lines touched by every warp load) ran K's pass at
// 0.6x the slot walk's speed.
template <RopeKind kRope>
__global__ void __launch_bounds__(kTileThreads) tiled_epilogue_kernel(const __grid_constant__ TileParams params) {
  __shared__ uint4 tile[kTileChunks];
  const int rows_per_block = tile_rows(params.columns);
  const std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const int block_rows = static_cast<int>(min(static_cast<std::int64_t>(rows_per_block), params.rows - first_row));
  const int units_per_thread = rows_per_block * kRotarySlots / kTileThreads;
  const int slot = static_cast<int>(threadIdx.x) % kRotarySlots;
  const int first_local_row = static_cast<int>(threadIdx.x) / kRotarySlots;
  constexpr int kRowStep = kTileThreads / kRotarySlots;
  const StagedGroup& group = params.group;
  const RotaryPair pair = kRope == RopeKind::kLanguage ? language_slot_pair(slot) : vision_slot_pair(slot);

  float cos_values[kMaxUnitsPerThread] = {};
  float sin_values[kMaxUnitsPerThread] = {};
  if constexpr (kRope != RopeKind::kNone) {
    const float frequency = rope_inv_freq(pair.freq_index, pair.width);
#pragma unroll
    for (int unit = 0; unit < kMaxUnitsPerThread; ++unit) {
      const int local_row = first_local_row + unit * kRowStep;
      if (unit < units_per_thread && local_row < block_rows) {
        const std::int64_t row = first_row + local_row;
        const float position = static_cast<float>(
            kRope == RopeKind::kLanguage ? group.positions[row] : group.positions[row * 3 + pair.section]);
        rope_cos_sin(position * frequency, cos_values[unit], sin_values[unit]);
      }
    }
  }
  prefetch_bias(group, params.columns);
  wait_for_previous_kernel();

  const int chunks = block_rows * params.columns * static_cast<int>(sizeof(__nv_bfloat16)) / 16;
  const auto* source = reinterpret_cast<const uint4*>(params.staged + first_row * params.columns);
  uint4 loaded[kChunksPerThread];
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kTileThreads;
    if (chunk < chunks) loaded[i] = source[chunk];
  }
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kTileThreads;
    if (chunk < chunks) tile[chunk] = loaded[i];
  }
  __syncthreads();

  auto* values = reinterpret_cast<__nv_bfloat16*>(tile);
  const int heads = params.columns / kHeadDim;
#pragma unroll
  for (int unit = 0; unit < kMaxUnitsPerThread; ++unit) {
    const int local_row = first_local_row + unit * kRowStep;
    if (unit >= units_per_thread || local_row >= block_rows) continue;
    __nv_bfloat16* row_values = values + local_row * params.columns;
    for (int head = 0; head < heads; ++head) {
      const int base = head * kHeadDim;
      if constexpr (kRope == RopeKind::kNone) {
        for (const int column : {base + slot, base + slot + kRotarySlots}) {
          row_values[column] =
              __float2bfloat16_rn((__bfloat162float(row_values[column]) + bias_at(group, column)) * group.scale);
        }
      } else {
        const int first = base + pair.element;
        const int second = base + pair.partner;
        const RotatedPair rotated = rotate_pair(__bfloat162float(row_values[first]) + bias_at(group, first),
                                                __bfloat162float(row_values[second]) + bias_at(group, second),
                                                cos_values[unit], sin_values[unit], group.arithmetic);
        row_values[first] = __float2bfloat16_rn(rotated.first * group.scale);
        row_values[second] = __float2bfloat16_rn(rotated.second * group.scale);
      }
    }
  }
  __syncthreads();

  auto* destination = reinterpret_cast<uint4*>(group.output + first_row * params.columns);
#pragma unroll
  for (int i = 0; i < kChunksPerThread; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kTileThreads;
    if (chunk < chunks) destination[chunk] = tile[chunk];
  }
}

using TileKernel = void (*)(TileParams);

TileKernel tiled_kernel(RopeKind rope) {
  switch (rope) {
    case RopeKind::kLanguage: return tiled_epilogue_kernel<RopeKind::kLanguage>;
    case RopeKind::kVision: return tiled_epilogue_kernel<RopeKind::kVision>;
    default: return tiled_epilogue_kernel<RopeKind::kNone>;
  }
}

// The tiled kernel takes bf16 values of one group, 16-byte aligned, whose rows fill its tile in whole multiples of 4
// (1024 to 8192 columns: every projection's), from kTiledMinRows rows. K's pass, v18: 33.8 against the slot walk's
// 37.7 us at 25088 rows, 26.8 against 29.1 at 18816, level at 12544 (19.2, 19.3), slower from 6272 rows down (10.5
// against 10.2; 5.4 against 3.3 at 784), where a block's load, walk and store in turn are not hidden by enough
// blocks (v13b found the same).
constexpr std::int64_t kTiledMinRows = 16384;

bool takes_tiles(const bf16* staged, const ProjectionShape& shape, const ProjectionOutput* outputs) {
  const std::int64_t bytes = shape.out_features * static_cast<std::int64_t>(sizeof(bf16));
  const bool whole_tiles = shape.out_features % kHeadDim == 0 && kTileBytes % bytes == 0 &&
                           tile_rows(shape.out_features) % 4 == 0 &&
                           tile_rows(shape.out_features) * kRotarySlots <= kMaxUnitsPerThread * kTileThreads;
  return shape.rows >= kTiledMinRows && shape.groups == 1 && whole_tiles && aligned_16(staged) &&
         aligned_16(outputs[0].output);
}

void launch_tiles(const bf16* staged, const ProjectionShape& shape, const ProjectionOutput& output, cudaStream_t stream,
                  LaunchOrder order) {
  TileParams params;
  params.staged = reinterpret_cast<const __nv_bfloat16*>(staged);
  params.rows = shape.rows;
  params.columns = static_cast<int>(shape.out_features);
  params.group = staged_group(output, 0);
  const int rows_per_block = tile_rows(shape.out_features);
  const dim3 grid(static_cast<unsigned>((shape.rows + rows_per_block - 1) / rows_per_block));
  const OrderedLaunchConfig launch(grid, dim3(kTileThreads), 0, stream, order);
  const TileKernel kernel = tiled_kernel(output.rope);
  VLB_CUDA_CHECK(cudaLaunchKernelEx(launch.get(), kernel, params));
}

template <class Staged>
void launch_staged(const Staged* staged, const ProjectionShape& shape, const ProjectionOutput* outputs,
                   cudaStream_t stream, LaunchOrder order) {
  check_projection_shape(shape);
  if constexpr (std::is_same_v<Staged, bf16>) {
    if (takes_tiles(staged, shape, outputs)) {
      launch_tiles(staged, shape, outputs[0], stream, order);
      return;
    }
  }
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

StagedEpilogueKernel staged_epilogue_kernel_for(const bf16* staged, const ProjectionShape& shape,
                                                const ProjectionOutput* outputs) {
  return takes_tiles(staged, shape, outputs) ? StagedEpilogueKernel::kTiles : StagedEpilogueKernel::kSlotWalk;
}

}  // namespace vlb::fused_b200
