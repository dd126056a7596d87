#pragma once
// RoPE math shared by the CPU references, the GPU references and the tests (host and device).
//
// Both rotations use rotate-half over 64 pairs of one head (head_dim 128):
//   1D (Q): one section of width 128, pair p = (p, p + 64), frequency index p.
//   3D (K): the sections of KRopeSections (harness/core/problem.hpp), [0,42) t, [42,84) h, [84,128) w of widths
//           w_s = 42, 42, 44; section s has w_s / 2 pairs (s0 + i, s0 + i + w_s / 2), i < w_s / 2, with
//           inv_freq_s[i] = 10000^(-2i / w_s); pairs numbered section after section: 0..20 t, 21..41 h, 42..63 w.
//
// The faithful rounding points (docs/operation.md step 2): inv_freq is the official fp32 table (1 / powf(10000, fp32(2i) / w) as
// PyTorch computes it on the GPU, stored in rope_inv_freq_table.hpp); the angle is fp32(pos) * inv_freq in fp32; cos
// and sin of that fp32 angle in fp32, then rounded to bf16; each product and each sum of the rotation rounded to bf16.
// cos/sin are evaluated in double and rounded to fp32 so that host and device give the same bits (a correctly
// rounded fp32 cos; PyTorch's fp32 cos is within an ulp of it, far below the bf16 rounding that follows).
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "harness/core/problem.hpp"
#include "reference/rope_inv_freq_table.hpp"

#if defined(__CUDACC__)
#define VLB_ROPE_HD __host__ __device__ inline
#else
#define VLB_ROPE_HD inline
#endif

namespace vlb::reference::rope {

inline constexpr int kHeadDim = static_cast<int>(ModelDims::kHeadDim);
inline constexpr int kNumPairs = kHeadDim / 2;  // 64 in both variants
inline constexpr double kTheta = ModelDims::kRopeTheta;

// One rotated pair of a head: dims (low, high) turn by the angle pos * inv_freq(freq_index, width).
struct RopePair {
  int low;
  int high;
  int freq_index;
  int width;    // the frequency table's width: 128 (1D) or the section width (3D)
  int section;  // 0 for 1D; 0, 1, 2 (t, h, w) for 3D: which position component drives the angle
};

VLB_ROPE_HD RopePair pair_1d(int pair) { return {pair, pair + kNumPairs, pair, kHeadDim, 0}; }

VLB_ROPE_HD RopePair pair_3d(int pair) {
  using S = KRopeSections;
  const int section = S::section_of_pair(pair);
  const int i = pair - S::first_pair(section);
  return {S::start(section) + i, S::start(section) + i + S::pairs(section), i, S::width(section), section};
}

// The official table, per width (128 for Q; 42 and 44 for K's sections), on the host and on the device.
inline constexpr float kInvFreqWidth128[] = {VLB_ROPE_INV_FREQ_WIDTH_128};
inline constexpr float kInvFreqWidth42[] = {VLB_ROPE_INV_FREQ_WIDTH_42};
inline constexpr float kInvFreqWidth44[] = {VLB_ROPE_INV_FREQ_WIDTH_44};
static_assert(sizeof(kInvFreqWidth128) == 64 * sizeof(float) && sizeof(kInvFreqWidth42) == 21 * sizeof(float) &&
              sizeof(kInvFreqWidth44) == 22 * sizeof(float));
#if defined(__CUDACC__)
static __constant__ float kDeviceInvFreqWidth128[] = {VLB_ROPE_INV_FREQ_WIDTH_128};
static __constant__ float kDeviceInvFreqWidth42[] = {VLB_ROPE_INV_FREQ_WIDTH_42};
static __constant__ float kDeviceInvFreqWidth44[] = {VLB_ROPE_INV_FREQ_WIDTH_44};
#endif

// inv_freq = theta^(-2i / width): exact (double), and the official fp32 value (width 128, 42 or 44).
VLB_ROPE_HD double inv_freq_exact(int freq_index, int width) {
  return pow(kTheta, -2.0 * static_cast<double>(freq_index) / static_cast<double>(width));
}
VLB_ROPE_HD float inv_freq_fp32(int freq_index, int width) {
#if defined(__CUDA_ARCH__)
  const float* table = width == 128 ? kDeviceInvFreqWidth128 : (width == 44 ? kDeviceInvFreqWidth44 : kDeviceInvFreqWidth42);
#else
  const float* table = width == 128 ? kInvFreqWidth128 : (width == 44 ? kInvFreqWidth44 : kInvFreqWidth42);
#endif
  return table[freq_index];
}

// The faithful angle: fp32 position times fp32 inv_freq, one fp32 rounding.
VLB_ROPE_HD float angle_fp32(std::int64_t position, int freq_index, int width) {
  const float product = static_cast<float>(position) * inv_freq_fp32(freq_index, width);
  return product;
}

struct CosSin {
  float cos;
  float sin;
};

// The exact angle's cos and sin (double).
VLB_ROPE_HD double angle_exact(std::int64_t position, int freq_index, int width) {
  return static_cast<double>(position) * inv_freq_exact(freq_index, width);
}

// fp32 cos/sin of the fp32 angle, rounded to bf16 (kept as float values that are exact bf16 values).
VLB_ROPE_HD CosSin cos_sin_bf16(std::int64_t position, int freq_index, int width) {
  const double angle = static_cast<double>(angle_fp32(position, freq_index, width));
  const float c = static_cast<float>(cos(angle));
  const float s = static_cast<float>(sin(angle));
  return {__bfloat162float(__float2bfloat16_rn(c)), __bfloat162float(__float2bfloat16_rn(s))};
}

VLB_ROPE_HD float round_bf16(float value) { return __bfloat162float(__float2bfloat16_rn(value)); }

// The faithful rotation of one pair in bf16: each product and the sum rounded to bf16.
//   low'  = bf16(bf16(low * c) - bf16(high * s)),  high' = bf16(bf16(high * c) + bf16(low * s)).
// The products of two bf16 values are exact in fp32, so only the explicit roundings matter.
VLB_ROPE_HD void rotate_pair_bf16(float& low, float& high, CosSin cs) {
  const float low_cos = round_bf16(low * cs.cos);
  const float high_sin = round_bf16(high * cs.sin);
  const float high_cos = round_bf16(high * cs.cos);
  const float low_sin = round_bf16(low * cs.sin);
  low = round_bf16(low_cos - high_sin);
  high = round_bf16(high_cos + low_sin);
}

}  // namespace vlb::reference::rope
