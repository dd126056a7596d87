// The fused projections' epilogue math on the CPU: RoPE pairing, frequencies and rotated values against hand values
// (computed independently in double precision), and every pairing against docs/operation.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "solutions/fused_b200/epilogue_math.hpp"

using namespace vlb::fused_b200;

TEST_CASE("language RoPE pairs element i with i+64 over the whole head", "[fused_b200][rope]") {
  const RotaryPair first = language_rotary_pair(0);
  CHECK(first.partner == 64);
  CHECK(first.freq_index == 0);
  CHECK(first.sign == -1.0f);
  const RotaryPair last = language_rotary_pair(127);
  CHECK(last.partner == 63);
  CHECK(last.freq_index == 63);
  CHECK(last.sign == 1.0f);
  for (int d = 0; d < kHeadDim; ++d) {
    const RotaryPair pair = language_rotary_pair(d);
    CHECK(pair.width == 128);
    CHECK(pair.freq_index == d % 64);
    CHECK(pair.partner == (d < 64 ? d + 64 : d - 64));
    CHECK(language_rotary_pair(pair.partner).partner == d);
  }
}

TEST_CASE("vision RoPE pairs inside sections of width 42, 42, 44", "[fused_b200][rope]") {
  struct Expected {
    int d, partner, freq_index, width, section;
    float sign;
  };
  const Expected hand[] = {
      {0, 21, 0, 42, 0, -1.0f},   {20, 41, 20, 42, 0, -1.0f}, {21, 0, 0, 42, 0, 1.0f},   {41, 20, 20, 42, 0, 1.0f},
      {42, 63, 0, 42, 1, -1.0f},  {66, 45, 3, 42, 1, 1.0f},   {83, 62, 20, 42, 1, 1.0f},  {84, 106, 0, 44, 2, -1.0f},
      {105, 127, 21, 44, 2, -1.0f}, {106, 84, 0, 44, 2, 1.0f}, {127, 105, 21, 44, 2, 1.0f},
  };
  for (const Expected& e : hand) {
    INFO("d = " << e.d);
    const RotaryPair pair = vision_rotary_pair(e.d);
    CHECK(pair.partner == e.partner);
    CHECK(pair.freq_index == e.freq_index);
    CHECK(pair.width == e.width);
    CHECK(pair.section == e.section);
    CHECK(pair.sign == e.sign);
  }
  for (int d = 0; d < kHeadDim; ++d) {
    const RotaryPair pair = vision_rotary_pair(d);
    CHECK(vision_rotary_pair(pair.partner).partner == d);
    CHECK(pair.freq_index < pair.width / 2);
  }
}

TEST_CASE("every rotated pair has its own rotary slot, shared by its two elements", "[fused_b200][rope]") {
  for (const bool language : {true, false}) {
    INFO((language ? "language" : "vision"));
    std::vector<int> hits(kRotarySlots, 0);
    for (int d = 0; d < kHeadDim; ++d) {
      const RotaryPair pair = language ? language_rotary_pair(d) : vision_rotary_pair(d);
      INFO("d=" << d << " slot=" << pair.slot);
      REQUIRE(pair.slot >= 0);
      REQUIRE(pair.slot < kRotarySlots);
      ++hits[pair.slot];
      const RotaryPair partner = language ? language_rotary_pair(pair.partner) : vision_rotary_pair(pair.partner);
      CHECK(partner.slot == pair.slot);
      // The slot's angle is the pair's angle: same section, frequency and width.
      const RotaryPair owner = language ? language_slot_pair(pair.slot) : vision_slot_pair(pair.slot);
      CHECK(owner.section == pair.section);
      CHECK(owner.freq_index == pair.freq_index);
      CHECK(owner.width == pair.width);
      CHECK(owner.slot == pair.slot);
      CHECK(owner.sign < 0.0f);
      CHECK((owner.element == d || owner.partner == d));
      CHECK((owner.element == pair.partner || owner.partner == pair.partner));
    }
    for (int slot = 0; slot < kRotarySlots; ++slot) CHECK(hits[slot] == 2);
  }
  // The section boundaries: K's slots 0-20 are t, 21-41 h, 42-63 w.
  CHECK(vision_slot_pair(20).section == 0);
  CHECK(vision_slot_pair(21).section == 1);
  CHECK(vision_slot_pair(42).section == 2);
  CHECK(vision_slot_pair(63).freq_index == 21);
}

TEST_CASE("inverse frequencies are theta^(-2i/width)", "[fused_b200][rope]") {
  // Hand values of 10000^(-2i/w).
  CHECK(rope_inv_freq(0, 128) == 1.0f);
  CHECK(rope_inv_freq(1, 128) == Approx(0.8659643233600653).epsilon(1e-6));
  CHECK(rope_inv_freq(63, 128) == Approx(0.00011547819846894582).epsilon(1e-6));
  CHECK(rope_inv_freq(1, 42) == Approx(0.6449466771037624).epsilon(1e-6));
  CHECK(rope_inv_freq(20, 42) == Approx(0.00015505157798326253).epsilon(1e-6));
  CHECK(rope_inv_freq(21, 44) == Approx(0.0001519911082952933).epsilon(1e-6));
  for (int width : {42, 44, 128}) {
    for (int i = 0; i < width / 2; ++i) {
      CHECK(rope_inv_freq(i, width) == Approx(std::pow(10000.0, -2.0 * i / width)).epsilon(2e-6));
    }
  }
}

TEST_CASE("rotated values match hand-computed rotations", "[fused_b200][rope]") {
  const float x = 0.75f;
  const float partner = -1.5f;
  // Q, d = 0, position 3: x*cos(3) - partner*sin(3).
  CHECK(rope_element(x, partner, 3.0f, language_rotary_pair(0), 1.0f) == Approx(-0.5308143603605333).epsilon(1e-5));
  // Q, d = 65 (second half, frequency 1), position 3: x*cos(a) + partner*sin(a).
  CHECK(rope_element(x, partner, 3.0f, language_rotary_pair(65), 1.0f) == Approx(-1.4178090810717614).epsilon(1e-5));
  // K, d = 89 (w section, frequency 5 of width 44), w = 7.
  CHECK(rope_element(x, partner, 7.0f, vision_rotary_pair(89), 1.0f) == Approx(1.6273124967698873).epsilon(1e-5));
  // K, d = 66 (h section, second half, frequency 3 of width 42), h = 2.
  CHECK(rope_element(x, partner, 2.0f, vision_rotary_pair(66), 1.0f) == Approx(-0.12213462476751147).epsilon(1e-5));
  // The softmax-scale fold multiplies the rotated value.
  CHECK(rope_element(x, partner, 3.0f, language_rotary_pair(0), 0.125f) ==
        Approx(-0.5308143603605333 * 0.125).epsilon(1e-5));
}

TEST_CASE("a pair's rotation preserves its norm at random positions", "[fused_b200][rope]") {
  std::mt19937 rng(0xf05ed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::uniform_int_distribution<int> position(0, 12543);
  std::uniform_int_distribution<int> dim(0, kHeadDim - 1);
  for (int trial = 0; trial < 200; ++trial) {
    const float a = value(rng);
    const float b = value(rng);
    const float pos = static_cast<float>(position(rng));
    const RotaryPair pair = (trial % 2 == 0) ? language_rotary_pair(dim(rng)) : vision_rotary_pair(dim(rng));
    const RotaryPair back = (trial % 2 == 0) ? language_rotary_pair(pair.partner) : vision_rotary_pair(pair.partner);
    const float out_a = rope_element(a, b, pos, pair, 1.0f);
    const float out_b = rope_element(b, a, pos, back, 1.0f);
    CHECK(out_a * out_a + out_b * out_b == Approx(a * a + b * b).epsilon(1e-4));
  }
}

namespace {
// bf16 rounding written independently of the epilogue: keep 8 significant bits, ties to even, on the exact double.
double bf16_of(double x) {
  if (x == 0.0) return x;
  int exponent = 0;
  const double mantissa = std::frexp(x, &exponent);  // x = mantissa * 2^exponent, 0.5 <= |mantissa| < 1
  return std::ldexp(std::nearbyint(std::ldexp(mantissa, 8)), exponent - 8);
}
}  // namespace

TEST_CASE("the reference's bf16 RoPE arithmetic rounds the inputs, cos, sin, both products and the sum",
          "[fused_b200][rope]") {
  std::mt19937_64 rng(515);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::uniform_real_distribution<float> angle(-3.14159f, 3.14159f);
  for (int i = 0; i < 2000; ++i) {
    const float x = normal(rng), partner = normal(rng), a = angle(rng);
    const float cos_value = std::cos(a), sin_value = std::sin(a);
    for (float sign : {-1.0f, 1.0f}) {
      const double expected =
          bf16_of(bf16_of(bf16_of(x) * bf16_of(cos_value)) + sign * bf16_of(bf16_of(partner) * bf16_of(sin_value)));
      const double exact = static_cast<double>(x) * cos_value + sign * static_cast<double>(partner) * sin_value;
      // The pair as the epilogue computes it: x is the pair's first element for sign -1, its second for +1.
      constexpr auto kBf16 = RopeArithmetic::kReferenceBf16;
      const RotatedPair bf16_pair = sign < 0 ? rotate_pair(x, partner, cos_value, sin_value, kBf16)
                                             : rotate_pair(partner, x, cos_value, sin_value, kBf16);
      CHECK((sign < 0 ? bf16_pair.first : bf16_pair.second) == expected);
      // The fp32 arithmetic rounds nothing on the way: it stays within fp32 steps of the exact rotation.
      const RotatedPair fp32_pair = sign < 0 ? rotate_pair(x, partner, cos_value, sin_value, RopeArithmetic::kFp32)
                                             : rotate_pair(partner, x, cos_value, sin_value, RopeArithmetic::kFp32);
      CHECK((sign < 0 ? fp32_pair.first : fp32_pair.second) == Approx(exact).margin(1e-6));
    }
  }
  // Exactly representable inputs with cos 1, sin 0 come back unchanged; a value between bf16 steps does not.
  CHECK(rotate_pair(1.5f, 0.75f, 1.0f, 0.0f, RopeArithmetic::kReferenceBf16).first == 1.5f);
  CHECK(rotate_pair(1.001f, 0.0f, 1.0f, 0.0f, RopeArithmetic::kReferenceBf16).first == 1.0f);
}
