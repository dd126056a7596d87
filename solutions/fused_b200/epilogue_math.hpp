#pragma once
// Architecture-neutral epilogue math of the projection GEMMs: bias, 1D RoPE for Q, sectioned 3D RoPE for K and the
// optional softmax-scale fold, on the fp32 accumulator: in fp32 with one rounding to bf16 by the caller, or with the
// reference's bf16 rounding points (RopeArithmetic).
// The same functions run on the host (CPU tests) and inside the sm90 / sm100 epilogues.
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define VLB_FUSED_HD __host__ __device__ __forceinline__
#else
#define VLB_FUSED_HD inline
#endif

namespace vlb::fused_b200 {

inline constexpr int kHeadDim = 128;
// Each rotated pair of a head has one angle per row: 64 (cos, sin) slots per row, shared by every head of the row.
inline constexpr int kRotarySlots = kHeadDim / 2;

// Sectioned 3D RoPE of K: [0,42) t, [42,84) h, [84,128) w.
inline constexpr int kVisionSectionStart[3] = {0, 42, 84};
inline constexpr int kVisionSectionWidth[3] = {42, 42, 44};
static_assert(kVisionSectionStart[1] == 42 && kVisionSectionStart[2] == 84 && kVisionSectionWidth[2] == 44,
              "vision_rotary_pair spells these section bounds out as scalars");

// How a rotated pair is computed. kFp32: in fp32 on the biased accumulator, rounded to bf16 once. kReferenceBf16: the
// reference's arithmetic (docs/operation.md, step 2): the biased value rounded to bf16 (the projection's output), cos
// and sin rounded to bf16, each product and the sum rounded to bf16.
enum class RopeArithmetic : int { kFp32 = 0, kReferenceBf16 = 1 };

enum class RopeKind : int {
  kNone = 0,      // bias only (V, O)
  kLanguage = 1,  // 1D rotate-half over the whole head, position from language_position_ids [rows]
  kVision = 2,    // sectioned 3D rotate-half, positions (t, h, w) from vision_grid_thw [rows, 3]
};

// Where element d of a head gets its rotation partner: out[d] = x[d]*cos + sign * x[partner]*sin, with
// angle = position[section] * inv_freq(freq_index, width).
struct RotaryPair {
  int element = 0;       // d itself
  int partner = 0;
  int freq_index = 0;
  int width = kHeadDim;  // rotated width (the section's, or the whole head's)
  int section = 0;       // which position: 0 for Q; 0 t, 1 h, 2 w for K
  float sign = 1.0f;     // -1 in the first half of the rotated width, +1 in the second
  int slot = 0;          // the pair's angle among the row's kRotarySlots: section's first slot + freq_index
};

VLB_FUSED_HD RotaryPair rotate_half_pair(int offset_in_section, int width, int section_start, int section) {
  const int half = width / 2;
  const bool first_half = offset_in_section < half;
  RotaryPair pair;
  pair.slot = section_start / 2 + (first_half ? offset_in_section : offset_in_section - half);
  pair.element = section_start + offset_in_section;
  pair.freq_index = first_half ? offset_in_section : offset_in_section - half;
  pair.partner = section_start + (first_half ? offset_in_section + half : offset_in_section - half);
  pair.width = width;
  pair.section = section;
  pair.sign = first_half ? -1.0f : 1.0f;
  return pair;
}

// d in [0, 128): 1D rotate-half over the whole head (pairs (i, i+64)).
VLB_FUSED_HD RotaryPair language_rotary_pair(int d) { return rotate_half_pair(d, kHeadDim, 0, 0); }

// d in [0, 128): rotate-half inside the section holding d (pairs (s0+i, s0+i+w_s/2)).
VLB_FUSED_HD RotaryPair vision_rotary_pair(int d) {
  // Scalar constants rather than the arrays above: device code cannot index host constexpr arrays at run time.
  if (d < 42) return rotate_half_pair(d, 42, 0, 0);
  if (d < 84) return rotate_half_pair(d - 42, 42, 42, 1);
  return rotate_half_pair(d - 84, 44, 84, 2);
}

// The pair whose angle sits in `slot` (the inverse of RotaryPair::slot), seen from its first-half element: element
// and partner are the two columns the slot rotates.
VLB_FUSED_HD RotaryPair language_slot_pair(int slot) { return language_rotary_pair(slot); }
VLB_FUSED_HD RotaryPair vision_slot_pair(int slot) {
  if (slot < 21) return vision_rotary_pair(slot);
  if (slot < 42) return vision_rotary_pair(42 + slot - 21);
  return vision_rotary_pair(84 + slot - 42);
}

// inv_freq[i] = theta^(-2i/width) as the reference computes it on the GPU: PyTorch divides the fp32 exponents
// arange(0, w, 2) by w as a multiplication by fp32(1/w) (its division by a scalar), raises theta with powf and takes
// the reciprocal, all in fp32. On the device CUDA's powf is PyTorch's, so these are the official table's values bit
// for bit (tested against it); they differ from the exactly rounded ones by up to 5 ulp. The host's powf may differ
// by an ulp.
VLB_FUSED_HD float rope_inv_freq(int freq_index, int width) {
  const float exponent = static_cast<float>(2 * freq_index) * (1.0f / static_cast<float>(width));
  return 1.0f / powf(10000.0f, exponent);
}

// cos and sin of an fp32 angle (positions reach ~12544 rad). On the device: a two-step reduction to [-pi, pi] and the
// fast hardware sincos, accurate to ~1e-6 absolute there; on the host: the C library. CUDA's accurate sincosf changed
// no bf16 value of Q in the stage test and made small cases up to 30 us slower (NOTES.md, v8).
VLB_FUSED_HD void rope_cos_sin(float angle, float& cos_value, float& sin_value) {
#if defined(__CUDA_ARCH__)
  constexpr float kTwoPiHi = 6.28318548202514648f;   // fp32(2*pi)
  constexpr float kTwoPiLo = -1.7484556e-7f;         // 2*pi - kTwoPiHi
  constexpr float kInvTwoPi = 0.159154943091895336f;
  const float turns = rintf(angle * kInvTwoPi);
  float reduced = fmaf(-turns, kTwoPiHi, angle);
  reduced = fmaf(-turns, kTwoPiLo, reduced);
  __sincosf(reduced, &sin_value, &cos_value);
#else
  cos_value = std::cos(angle);
  sin_value = std::sin(angle);
#endif
}

VLB_FUSED_HD float rope_angle(float position, const RotaryPair& pair) {
  return position * rope_inv_freq(pair.freq_index, pair.width);
}

// One rotated element: x and its partner already carry their bias.
VLB_FUSED_HD float rotate_element(float x, float partner, float cos_value, float sin_value, float sign) {
  return fmaf(x, cos_value, sign * partner * sin_value);
}

VLB_FUSED_HD float round_to_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// rotate_element with the reference's bf16 rounding points (RopeArithmetic::kReferenceBf16).
VLB_FUSED_HD float rotate_element_bf16(float x, float partner, float cos_value, float sin_value, float sign) {
  const float cos_bf16 = round_to_bf16(cos_value);
  const float sin_bf16 = round_to_bf16(sin_value);
  return round_to_bf16(round_to_bf16(round_to_bf16(x) * cos_bf16) +
                       sign * round_to_bf16(round_to_bf16(partner) * sin_bf16));
}

struct RotatedPair {
  float first;   // x*cos - partner*sin
  float second;  // partner*cos + x*sin
};

// Both elements of a rotated pair (x_first = x[i], x_second = x[i + w/2], biased). On the device the reference's bf16
// steps run on the bf16x2 unit (one multiply per product, one add, each rounded once), as cheap as the fp32 rotation:
// done element by element with conversions they cost Q and K 10-15% (NOTES.md, v3).
VLB_FUSED_HD RotatedPair rotate_pair(float x_first, float x_second, float cos_value, float sin_value,
                                     RopeArithmetic arithmetic) {
  if (arithmetic == RopeArithmetic::kFp32) {
    return {rotate_element(x_first, x_second, cos_value, sin_value, -1.0f),
            rotate_element(x_second, x_first, cos_value, sin_value, 1.0f)};
  }
#if defined(__CUDA_ARCH__)
  const __nv_bfloat162 x = __floats2bfloat162_rn(x_first, x_second);
  const __nv_bfloat162 partner = __lowhigh2highlow(x);
  const __nv_bfloat162 cos2 = __float2bfloat162_rn(cos_value);
  const __nv_bfloat162 signed_sin = __floats2bfloat162_rn(-sin_value, sin_value);
  // The _rn forms: each product rounded to bf16 as the reference rounds it. Plain __hmul2 and __hadd2 let the compiler
  // fuse one product into the sum (one rounding fewer), which left 18-23% of Q's values an ulp or two off (v8).
  const __nv_bfloat162 rotated = __hadd2_rn(__hmul2_rn(x, cos2), __hmul2_rn(partner, signed_sin));
  return {__low2float(rotated), __high2float(rotated)};
#else
  return {rotate_element_bf16(x_first, x_second, cos_value, sin_value, -1.0f),
          rotate_element_bf16(x_second, x_first, cos_value, sin_value, 1.0f)};
#endif
}

// The whole epilogue of one element: value = (acc + bias), rotated with its partner, then scaled.
VLB_FUSED_HD float rope_element(float x, float partner, float position, const RotaryPair& pair, float scale) {
  float cos_value = 0.0f;
  float sin_value = 0.0f;
  rope_cos_sin(rope_angle(position, pair), cos_value, sin_value);
  return rotate_element(x, partner, cos_value, sin_value, pair.sign) * scale;
}

}  // namespace vlb::fused_b200
