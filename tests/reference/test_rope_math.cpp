// RoPE pairs, frequencies and the faithful bf16 rounding, against values computed by hand (Python, double and
// IEEE fp32 emulation) for positions inside and beyond 4096.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "reference/rope_math.hpp"

namespace rope = vlb::reference::rope;

TEST_CASE("1D RoPE pairs dims (p, p + 64) with frequency index p over width 128", "[rope]") {
  const rope::RopePair first = rope::pair_1d(0);
  CHECK(first.low == 0);
  CHECK(first.high == 64);
  CHECK(first.freq_index == 0);
  CHECK(first.width == 128);
  const rope::RopePair last = rope::pair_1d(63);
  CHECK(last.low == 63);
  CHECK(last.high == 127);
  CHECK(last.freq_index == 63);
}

TEST_CASE("3D RoPE sections are 42/42/44 with pairs (s0 + i, s0 + i + w/2)", "[rope]") {
  struct Expected {
    int pair, low, high, freq_index, width, section;
  };
  const std::array<Expected, 8> expected = {{
      {0, 0, 21, 0, 42, 0},      // t section starts
      {20, 20, 41, 20, 42, 0},   // t section ends
      {21, 42, 63, 0, 42, 1},    // h section starts
      {41, 62, 83, 20, 42, 1},   // h section ends
      {42, 84, 106, 0, 44, 2},   // w section starts (width 44: half 22)
      {50, 92, 114, 8, 44, 2},
      {63, 105, 127, 21, 44, 2}, // w section ends
      {30, 51, 72, 9, 42, 1},
  }};
  for (const auto& e : expected) {
    INFO("pair " << e.pair);
    const rope::RopePair p = rope::pair_3d(e.pair);
    CHECK(p.low == e.low);
    CHECK(p.high == e.high);
    CHECK(p.freq_index == e.freq_index);
    CHECK(p.width == e.width);
    CHECK(p.section == e.section);
    CHECK(vlb::KRopeSections::section_of_dim(p.low) == e.section);
    CHECK(vlb::KRopeSections::section_of_dim(p.high) == e.section);
  }
  CHECK(vlb::KRopeSections::section_of_dim(41) == 0);
  CHECK(vlb::KRopeSections::section_of_dim(42) == 1);
  CHECK(vlb::KRopeSections::section_of_dim(83) == 1);
  CHECK(vlb::KRopeSections::section_of_dim(84) == 2);
}

TEST_CASE("both RoPE variants rotate every head dimension exactly once", "[rope]") {
  for (bool three_d : {false, true}) {
    std::array<int, 128> seen{};
    for (int p = 0; p < rope::kNumPairs; ++p) {
      const rope::RopePair pair = three_d ? rope::pair_3d(p) : rope::pair_1d(p);
      ++seen[pair.low];
      ++seen[pair.high];
      CHECK(pair.high - pair.low == pair.width / 2);
    }
    for (int d = 0; d < 128; ++d) CHECK(seen[d] == 1);
  }
}

TEST_CASE("inverse frequencies are 10000^(-2i/width)", "[rope]") {
  CHECK(rope::inv_freq_exact(0, 128) == 1.0);
  CHECK(rope::inv_freq_exact(1, 128) == Approx(0.8659643233600653).epsilon(1e-15));
  CHECK(rope::inv_freq_exact(20, 42) == Approx(0.00015505157798326253).epsilon(1e-14));
  CHECK(rope::inv_freq_exact(5, 44) == Approx(0.12328467394420663).epsilon(1e-14));
  CHECK(rope::inv_freq_exact(21, 44) == Approx(0.0001519911082952933).epsilon(1e-14));
  CHECK(rope::inv_freq_exact(63, 128) == Approx(0.00011547819846894582).epsilon(1e-14));
}

TEST_CASE("faithful angles and bf16 cos/sin match hand-computed values, also beyond position 4096", "[rope]") {
  // The hand-computed angle and bf16 cos/sin use the exactly rounded inverse frequency; the official table differs
  // from it by a few ulp in some entries (test_rope_table.cpp), and where it does, cos/sin may move by one bf16 ulp.
  struct Expected {
    std::int64_t position;
    int freq_index, width;
    float angle_with_exact_inv_freq, cos_bf16, sin_bf16;
    double cos_exact, sin_exact;
  };
  const std::array<Expected, 7> expected = {{
      {5000, 1, 128, 4329.82177734375f, 0.76171875f, 0.6484375f, 0.7603528339620516, 0.6495102523331536},
      {30000, 1, 128, 25978.9296875f, -0.453125f, -0.890625f, -0.4535531041360017, -0.8912292531827023},
      {5000, 20, 42, 0.7752578854560852f, 0.71484375f, 0.69921875f, 0.7142405605807435, 0.6999002940571645},
      {30000, 5, 44, 3698.540283203125f, -0.6328125f, -0.7734375f, -0.6327746685309742, -0.7743359857745963},
      {7, 10, 42, 0.08716379851102829f, 0.99609375f, 0.0869140625f, 0.9962036408312902, 0.0870534662979122},
      {4097, 63, 128, 0.4731141924858093f, 0.890625f, 0.455078125f, 0.8901535981971244, 0.4556605881757962},
      {30000, 21, 44, 4.559732913970947f, -0.15234375f, -0.98828125f, -0.15206351292391074, -0.9883707239883421},
  }};
  for (const auto& e : expected) {
    INFO("position " << e.position << " freq " << e.freq_index << " width " << e.width);
    // One fp32 rounding of the product: the product of two fp32 values is exact in double.
    const float inv_freq = rope::inv_freq_fp32(e.freq_index, e.width);
    const float angle = rope::angle_fp32(e.position, e.freq_index, e.width);
    CHECK(angle == static_cast<float>(static_cast<double>(e.position) * static_cast<double>(inv_freq)));
    if (inv_freq == static_cast<float>(rope::inv_freq_exact(e.freq_index, e.width))) {
      CHECK(angle == e.angle_with_exact_inv_freq);
    }
    const rope::CosSin cs = rope::cos_sin_bf16(e.position, e.freq_index, e.width);
    const bool same_angle = angle == e.angle_with_exact_inv_freq;
    const float bf16_ulp_cos = std::ldexp(1.0f, std::ilogb(e.cos_bf16) - 7);
    const float bf16_ulp_sin = std::ldexp(1.0f, std::ilogb(e.sin_bf16) - 7);
    CHECK(std::abs(cs.cos - e.cos_bf16) <= (same_angle ? 0.0f : bf16_ulp_cos));
    CHECK(std::abs(cs.sin - e.sin_bf16) <= (same_angle ? 0.0f : bf16_ulp_sin));
    const double exact_angle = rope::angle_exact(e.position, e.freq_index, e.width);
    CHECK(std::cos(exact_angle) == Approx(e.cos_exact).margin(1e-9));
    CHECK(std::sin(exact_angle) == Approx(e.sin_exact).margin(1e-9));
  }
}

TEST_CASE("the faithful rotation rounds each product and each sum to bf16", "[rope]") {
  SECTION("exact values stay exact") {
    float low = 1.0f, high = 2.0f;
    rope::rotate_pair_bf16(low, high, {0.5f, 0.25f});
    CHECK(low == 0.0f);    // 1*0.5 - 2*0.25
    CHECK(high == 1.25f);  // 2*0.5 + 1*0.25
  }
  SECTION("a product is rounded before the sum") {
    // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 rounds to 1 + 2^-6 in bf16; the sum with 0 keeps it.
    float low = 1.0078125f, high = 0.0f;
    rope::rotate_pair_bf16(low, high, {1.0078125f, 0.0f});
    CHECK(low == 1.015625f);
    CHECK(high == 0.0f);
  }
  SECTION("the sum is rounded") {
    // 1 * 1 - (-2^-9) * 1 = 1 + 2^-9: below half a bf16 ulp of 1 (2^-8), rounds back to 1.
    float low = 1.0f, high = -0.001953125f;
    rope::rotate_pair_bf16(low, high, {1.0f, 1.0f});
    CHECK(low == 1.0f);
    // 1 - 2^-9 lies halfway between the bf16 values 1 - 2^-8 and 1: the tie goes to the even one, 1.
    CHECK(high == 1.0f);
  }
}
