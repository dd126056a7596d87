#pragma once
// The value of every input element as a pure function of (seed, tensor name, element index), shared by the host
// and device generators. Only plain IEEE operations (explicitly rounded on the device) are used, with our own
// log/sin/cos, so both sides produce the same bits. Include only from harness/inputs (built without FMA contraction).
#include <cstdint>
#include <cstring>

#include "harness/inputs/philox.hpp"

#if defined(__CUDA_ARCH__)
#define VLB_FMUL(a, b) __fmul_rn((a), (b))
#define VLB_FADD(a, b) __fadd_rn((a), (b))
#define VLB_FDIV(a, b) __fdiv_rn((a), (b))
#define VLB_FSQRT(a) __fsqrt_rn(a)
#else
#include <cmath>
#define VLB_FMUL(a, b) ((a) * (b))
#define VLB_FADD(a, b) ((a) + (b))
#define VLB_FDIV(a, b) ((a) / (b))
#define VLB_FSQRT(a) std::sqrt(a)
#endif

namespace vlb::input_values {

VLB_HOST_DEVICE float bits_to_float(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

VLB_HOST_DEVICE std::uint32_t float_to_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// Natural log for x in (0, 1]: log(x) = e*ln2 + 2*atanh(f/(2+f)), f = m-1, m in [sqrt(2)/2, sqrt(2)).
VLB_HOST_DEVICE float deterministic_log(float x) {
  const std::uint32_t bits = float_to_bits(x);
  int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127;
  float mantissa = bits_to_float((bits & 0x007fffffu) | 0x3f800000u);
  if (mantissa > 1.41421356f) {
    mantissa = VLB_FMUL(mantissa, 0.5f);
    exponent += 1;
  }
  const float f = VLB_FADD(mantissa, -1.0f);
  const float s = VLB_FDIV(f, VLB_FADD(2.0f, f));
  const float z = VLB_FMUL(s, s);
  float poly = 1.0f / 11.0f;
  poly = VLB_FADD(1.0f / 9.0f, VLB_FMUL(z, poly));
  poly = VLB_FADD(1.0f / 7.0f, VLB_FMUL(z, poly));
  poly = VLB_FADD(1.0f / 5.0f, VLB_FMUL(z, poly));
  poly = VLB_FADD(1.0f / 3.0f, VLB_FMUL(z, poly));
  poly = VLB_FADD(1.0f, VLB_FMUL(z, poly));
  const float log1p_f = VLB_FMUL(VLB_FMUL(2.0f, s), poly);
  const float e = static_cast<float>(exponent);
  return VLB_FADD(VLB_FMUL(e, 0.693145751953125f), VLB_FADD(log1p_f, VLB_FMUL(e, 1.428606765330187e-06f)));
}

// sin and cos of a in [-pi/4, pi/4] by Taylor series (error below 1e-8).
VLB_HOST_DEVICE void deterministic_sincos_small(float a, float& sin_a, float& cos_a) {
  const float a2 = VLB_FMUL(a, a);
  float s = 1.0f / 362880.0f;  // 1/9!
  s = VLB_FADD(-1.0f / 5040.0f, VLB_FMUL(a2, s));
  s = VLB_FADD(1.0f / 120.0f, VLB_FMUL(a2, s));
  s = VLB_FADD(-1.0f / 6.0f, VLB_FMUL(a2, s));
  s = VLB_FADD(1.0f, VLB_FMUL(a2, s));
  sin_a = VLB_FMUL(a, s);
  float c = -1.0f / 3628800.0f;
  c = VLB_FADD(1.0f / 40320.0f, VLB_FMUL(a2, c));
  c = VLB_FADD(-1.0f / 720.0f, VLB_FMUL(a2, c));
  c = VLB_FADD(1.0f / 24.0f, VLB_FMUL(a2, c));
  c = VLB_FADD(-0.5f, VLB_FMUL(a2, c));
  cos_a = VLB_FADD(1.0f, VLB_FMUL(a2, c));
}

// Two independent standard normals from four 32-bit words (Box-Muller).
struct NormalPair {
  float first, second;
};

VLB_HOST_DEVICE NormalPair box_muller(const PhiloxOutput& bits) {
  constexpr float kTwoPow24Inv = 1.0f / 16777216.0f;
  const float u1 = VLB_FMUL(static_cast<float>((bits.v[0] >> 8) + 1u), kTwoPow24Inv);  // (0, 1]
  const float radius = VLB_FSQRT(VLB_FMUL(-2.0f, deterministic_log(u1)));
  // Angle = (quadrant + 1/2) * pi/2 + a, a in [-pi/4, pi/4): the quadrant comes from two bits, a from 24 others.
  const std::uint32_t quadrant = bits.v[1] >> 30;
  const float t = VLB_FMUL(static_cast<float>(bits.v[1] & 0x00ffffffu), kTwoPow24Inv);
  const float a = VLB_FMUL(VLB_FADD(t, -0.5f), 1.57079632679f);
  float sin_a, cos_a;
  deterministic_sincos_small(a, sin_a, cos_a);
  // sin/cos of (q + 1/2) * pi/2 are +-sqrt(2)/2; their signs per quadrant:
  const float sin_sign = quadrant < 2 ? 1.0f : -1.0f;
  const float cos_sign = (quadrant == 0 || quadrant == 3) ? 1.0f : -1.0f;
  constexpr float kHalfSqrt2 = 0.70710678118f;
  // sin(b + a) = sin b cos a + cos b sin a; cos(b + a) = cos b cos a - sin b sin a
  const float sin_theta = VLB_FMUL(kHalfSqrt2, VLB_FADD(VLB_FMUL(sin_sign, cos_a), VLB_FMUL(cos_sign, sin_a)));
  const float cos_theta = VLB_FMUL(kHalfSqrt2, VLB_FADD(VLB_FMUL(cos_sign, cos_a), -VLB_FMUL(sin_sign, sin_a)));
  return {VLB_FMUL(radius, cos_theta), VLB_FMUL(radius, sin_theta)};
}

// Element `index` of a standard-normal tensor with stream `stream`: two normals per Philox call.
VLB_HOST_DEVICE float standard_normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const NormalPair pair = box_muller(philox4x32_10(seed, index >> 1, stream));
  return (index & 1u) ? pair.second : pair.first;
}

// A uniform integer in [0, bound) (bound < 2^32; the modulo bias is irrelevant for positions).
VLB_HOST_DEVICE std::int64_t uniform_integer(std::uint64_t seed, std::uint64_t stream, std::uint64_t index,
                                             std::uint32_t bound) {
  return static_cast<std::int64_t>(philox4x32_10(seed, index, stream).v[2] % bound);
}

// Position patterns. Official: language position = token index; vision tokens fill frames of a 14x14 grid.
inline constexpr std::int64_t kOfficialGridSide = 14;
// Random: language positions uniform in [0, kRandomPositionBound); per batch element a random frame grid
// (height and width in [1, kRandomGridSideMax]) and first frame index in [0, kRandomFirstFrameMax).
inline constexpr std::uint32_t kRandomPositionBound = 32768;
inline constexpr std::uint32_t kRandomGridSideMax = 48;
inline constexpr std::uint32_t kRandomFirstFrameMax = 64;

struct GridThw {
  std::int64_t t, h, w;
};

VLB_HOST_DEVICE GridThw official_grid_position(std::int64_t token) {
  const std::int64_t frame = kOfficialGridSide * kOfficialGridSide;
  return {token / frame, (token % frame) / kOfficialGridSide, token % kOfficialGridSide};
}

VLB_HOST_DEVICE GridThw random_grid_position(std::uint64_t seed, std::uint64_t stream, std::int64_t batch,
                                             std::int64_t token) {
  const PhiloxOutput grid = philox4x32_10(seed, static_cast<std::uint64_t>(batch), stream ^ 0x9e3779b97f4a7c15ull);
  const std::int64_t height = 1 + grid.v[0] % kRandomGridSideMax;
  const std::int64_t width = 1 + grid.v[1] % kRandomGridSideMax;
  const std::int64_t first_frame = grid.v[2] % kRandomFirstFrameMax;
  const std::int64_t frame = height * width;
  return {first_frame + token / frame, (token % frame) / width, token % width};
}

}  // namespace vlb::input_values
