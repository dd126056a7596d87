// The host input generator: determinism, distributions, and the two position patterns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/inputs/generator.hpp"

using namespace vlb;

namespace {

std::vector<std::byte> generate(TensorId id, const ProblemShape& shape, std::uint64_t seed,
                                PositionPattern positions = PositionPattern::kOfficial) {
  std::vector<std::byte> bytes(tensor_spec(id, shape).bytes());
  generate_tensor_on_host(id, shape, InputSettings{seed, positions}, bytes);
  return bytes;
}

// bf16 is the upper half of an fp32.
std::vector<float> as_floats(const std::vector<std::byte>& bytes) {
  std::vector<float> values(bytes.size() / 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint16_t half;
    std::memcpy(&half, bytes.data() + 2 * i, 2);
    const std::uint32_t bits = std::uint32_t{half} << 16;
    std::memcpy(&values[i], &bits, 4);
  }
  return values;
}

std::vector<std::int64_t> as_int64(const std::vector<std::byte>& bytes) {
  std::vector<std::int64_t> values(bytes.size() / 8);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

struct Moments {
  double mean = 0, std = 0;
};

Moments moments(const std::vector<float>& values) {
  double sum = 0, sum_squares = 0;
  for (float v : values) {
    sum += v;
    sum_squares += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(values.size());
  const double mean = sum / n;
  return {mean, std::sqrt(sum_squares / n - mean * mean)};
}

double fraction_differing(const std::vector<float>& a, const std::vector<float>& b) {
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i];
  return static_cast<double>(differing) / static_cast<double>(a.size());
}

constexpr ProblemShape kSmallShape{2, 5, 200};
constexpr std::array<TensorId, 7> kBf16Inputs = {
    TensorId::kLanguageHiddenStates, TensorId::kVisionHiddenStates, TensorId::kQProjBias,
    TensorId::kKProjWeight,          TensorId::kKProjBias,          TensorId::kVProjBias,
    TensorId::kVProjWeight};

}  // namespace

TEST_CASE("the same seed gives the same bits for every input", "[inputs]") {
  for (PositionPattern pattern : {PositionPattern::kOfficial, PositionPattern::kRandom}) {
    for (int i = 0; i < kNumInputs; ++i) {
      const auto id = static_cast<TensorId>(i);
      INFO(tensor_name(id) << " " << position_pattern_name(pattern));
      const auto first = generate(id, kSmallShape, 0x5eed1234u, pattern);
      const auto second = generate(id, kSmallShape, 0x5eed1234u, pattern);
      CHECK(first == second);
      const bool all_zero = std::all_of(first.begin(), first.end(), [](std::byte b) { return b == std::byte{0}; });
      CHECK_FALSE(all_zero);
    }
  }
}

TEST_CASE("different seeds give different values", "[inputs]") {
  for (TensorId id : kBf16Inputs) {
    INFO(tensor_name(id));
    const auto a = as_floats(generate(id, kSmallShape, 11));
    const auto b = as_floats(generate(id, kSmallShape, 12));
    CHECK(fraction_differing(a, b) > 0.95);
  }
  const auto positions_a =
      as_int64(generate(TensorId::kLanguagePositionIds, kSmallShape, 11, PositionPattern::kRandom));
  const auto positions_b =
      as_int64(generate(TensorId::kLanguagePositionIds, kSmallShape, 12, PositionPattern::kRandom));
  CHECK(positions_a != positions_b);
  const auto grid_a = as_int64(generate(TensorId::kVisionGridThw, kSmallShape, 11, PositionPattern::kRandom));
  const auto grid_b = as_int64(generate(TensorId::kVisionGridThw, kSmallShape, 12, PositionPattern::kRandom));
  CHECK(grid_a != grid_b);
}

TEST_CASE("different tensors of one seed are independent streams", "[inputs]") {
  const auto k = as_floats(generate(TensorId::kKProjWeight, kSmallShape, 3));
  const auto v = as_floats(generate(TensorId::kVProjWeight, kSmallShape, 3));
  CHECK(fraction_differing(k, v) > 0.95);
  double dot = 0, k_norm = 0, v_norm = 0;
  for (std::size_t i = 0; i < k.size(); ++i) {
    dot += static_cast<double>(k[i]) * v[i];
    k_norm += static_cast<double>(k[i]) * k[i];
    v_norm += static_cast<double>(v[i]) * v[i];
  }
  CHECK(std::abs(dot / std::sqrt(k_norm * v_norm)) < 0.01);  // 4M samples: uncorrelated within 20 sigma
  const auto language = as_floats(generate(TensorId::kLanguageHiddenStates, kSmallShape, 3));
  const auto vision = as_floats(generate(TensorId::kVisionHiddenStates, kSmallShape, 3));
  const std::vector<float> vision_prefix(vision.begin(), vision.begin() + static_cast<std::ptrdiff_t>(language.size()));
  CHECK(fraction_differing(language, vision_prefix) > 0.95);
  const auto q_bias = as_floats(generate(TensorId::kQProjBias, kSmallShape, 3));
  const std::vector<float> q_weight_prefix = [] {
    auto all = as_floats(generate(TensorId::kQProjWeight, ProblemShape{1, 1, 1}, 3));
    return std::vector<float>(all.begin(), all.begin() + 4096);
  }();
  CHECK(fraction_differing(q_bias, q_weight_prefix) > 0.95);
}

TEST_CASE("hidden states are standard normal, weights 0.02 * standard normal", "[inputs]") {
  const ProblemShape shape{1, 25, 25};  // 102,400 elements per hidden-state tensor
  const auto hidden = as_floats(generate(TensorId::kLanguageHiddenStates, shape, 2024));
  REQUIRE(hidden.size() == 102400);
  const Moments h = moments(hidden);
  CHECK(std::abs(h.mean) < 0.02);       // standard error 0.003
  CHECK(std::abs(h.std - 1.0) < 0.02);  // standard error 0.0022
  std::size_t within_one = 0, beyond_two = 0;
  for (float v : hidden) {
    REQUIRE(std::isfinite(v));
    within_one += std::abs(v) < 1.0f;
    beyond_two += std::abs(v) > 2.0f;
  }
  CHECK(std::abs(within_one / 102400.0 - 0.6827) < 0.01);
  CHECK(std::abs(beyond_two / 102400.0 - 0.0455) < 0.005);

  const auto weights = as_floats(generate(TensorId::kKProjWeight, shape, 2024));
  const Moments w = moments(weights);
  CHECK(std::abs(w.mean) < 0.0002);  // 4M elements: standard error 1e-5
  CHECK(std::abs(w.std - 0.02) < 0.0002);
  const float largest =
      *std::max_element(weights.begin(), weights.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  CHECK(std::abs(largest) > 0.02f * 4.0f);  // normal tails, not a bounded uniform
  CHECK(std::abs(largest) < 0.02f * 7.0f);

  const auto bias = as_floats(generate(TensorId::kVProjBias, shape, 2024));
  const Moments b = moments(bias);
  CHECK(std::abs(b.std - 0.02) < 0.002);  // 1024 elements: standard error 0.00044
}

TEST_CASE("the official position pattern: language i, vision frames of a 14x14 grid", "[inputs]") {
  const ProblemShape shape{2, 37, 430};  // Lv not a multiple of 196: a partial third frame
  for (std::uint64_t seed : {1ull, 99ull}) {
    const auto language = as_int64(generate(TensorId::kLanguagePositionIds, shape, seed));
    REQUIRE(language.size() == 2 * 37);
    for (std::int64_t b = 0; b < 2; ++b) {
      for (std::int64_t i = 0; i < 37; ++i) CHECK(language[b * 37 + i] == i);
    }
    const auto grid = as_int64(generate(TensorId::kVisionGridThw, shape, seed));
    REQUIRE(grid.size() == 2 * 430 * 3);
    for (std::int64_t b = 0; b < 2; ++b) {
      for (std::int64_t i = 0; i < 430; ++i) {
        const std::int64_t* thw = &grid[(b * 430 + i) * 3];
        INFO("b=" << b << " i=" << i);
        CHECK(thw[0] == i / 196);
        CHECK(thw[1] == (i % 196) / 14);
        CHECK(thw[2] == i % 14);
      }
    }
  }
}

TEST_CASE("the random position pattern stays valid and differs from the official one", "[inputs]") {
  const ProblemShape shape{3, 300, 2400};  // Lv beyond the largest random frame (48 x 48)
  const auto language = as_int64(generate(TensorId::kLanguagePositionIds, shape, 5, PositionPattern::kRandom));
  std::size_t not_official = 0;
  for (std::size_t i = 0; i < language.size(); ++i) {
    REQUIRE(language[i] >= 0);
    not_official += language[i] != static_cast<std::int64_t>(i % 300);
  }
  CHECK(not_official > language.size() * 9 / 10);
  CHECK(!std::equal(language.begin(), language.begin() + 300, language.begin() + 300));  // per batch element

  const auto grid = as_int64(generate(TensorId::kVisionGridThw, shape, 5, PositionPattern::kRandom));
  const auto official = as_int64(generate(TensorId::kVisionGridThw, shape, 5, PositionPattern::kOfficial));
  CHECK(grid != official);
  std::vector<std::int64_t> widths;
  for (std::int64_t b = 0; b < 3; ++b) {
    const std::int64_t* tokens = &grid[b * 2400 * 3];
    std::int64_t height = 0, width = 0;
    for (std::int64_t i = 0; i < 2400; ++i) {
      REQUIRE(tokens[3 * i] >= 0);
      REQUIRE(tokens[3 * i + 1] >= 0);
      REQUIRE(tokens[3 * i + 2] >= 0);
      height = std::max(height, tokens[3 * i + 1] + 1);
      width = std::max(width, tokens[3 * i + 2] + 1);
    }
    widths.push_back(width);
    // Every token sits in a frame of height x width, filled row by row, frames numbered from the first one.
    const std::int64_t first_frame = tokens[0];
    for (std::int64_t i = 0; i < 2400; ++i) {
      INFO("b=" << b << " i=" << i << " grid " << height << "x" << width);
      CHECK(tokens[3 * i] == first_frame + i / (height * width));
      CHECK(tokens[3 * i + 1] == (i % (height * width)) / width);
      CHECK(tokens[3 * i + 1] < height);
      CHECK(tokens[3 * i + 2] == i % width);
    }
  }
  CHECK(!(widths[0] == widths[1] && widths[1] == widths[2]));  // each batch element draws its own grid
}

TEST_CASE("position pattern names parse, and bad names are usage errors", "[inputs]") {
  for (PositionPattern pattern : {PositionPattern::kOfficial, PositionPattern::kRandom}) {
    CHECK(parse_position_pattern(position_pattern_name(pattern)) == pattern);
  }
  CHECK(position_pattern_name(PositionPattern::kOfficial) == "official");
  CHECK(position_pattern_name(PositionPattern::kRandom) == "random");
  for (const char* bad : {"Official", "", "rand", "official "}) {
    INFO("'" << bad << "'");
    try {
      parse_position_pattern(bad);
      FAIL("no error for a bad pattern name");
    } catch (const UsageError& error) {
      CHECK(std::string(error.what()).find("official") != std::string::npos);
      CHECK(std::string(error.what()).find("random") != std::string::npos);
    }
  }
}

TEST_CASE("the host generator refuses a wrong destination size and the output", "[inputs]") {
  std::vector<std::byte> too_small(tensor_spec(TensorId::kQProjBias, kSmallShape).bytes() - 2);
  CHECK_THROWS_AS(generate_tensor_on_host(TensorId::kQProjBias, kSmallShape, {}, too_small), std::invalid_argument);
  std::vector<std::byte> output(tensor_spec(TensorId::kOutput, kSmallShape).bytes());
  CHECK_THROWS_AS(generate_tensor_on_host(TensorId::kOutput, kSmallShape, {}, output), std::invalid_argument);
}
