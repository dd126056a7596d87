#include "harness/inputs/generator.hpp"

#include <fmt/format.h>

#include "harness/core/errors.hpp"
#include "harness/inputs/generator_rules.hpp"

namespace vlb {

std::string_view position_pattern_name(PositionPattern pattern) {
  return pattern == PositionPattern::kOfficial ? "official" : "random";
}

PositionPattern parse_position_pattern(std::string_view text) {
  if (text == "official") return PositionPattern::kOfficial;
  if (text == "random") return PositionPattern::kRandom;
  throw UsageError(fmt::format("unknown position pattern '{}': expected 'official' or 'random'", text));
}

void generate_tensor_on_host(TensorId id, const ProblemShape& shape, const InputSettings& settings,
                             std::span<std::byte> destination) {
  const TensorSpec spec = tensor_spec(id, shape);
  if (spec.is_output) throw std::invalid_argument("the output is not an input tensor");
  if (destination.size() != spec.bytes()) {
    throw std::invalid_argument(fmt::format("{} needs {} bytes, got {}", spec.name, spec.bytes(), destination.size()));
  }
  const input_values::ElementRule rule = input_values::element_rule(id, shape, settings);
  const auto count = static_cast<std::uint64_t>(spec.elements());
  if (id == TensorId::kLanguagePositionIds || id == TensorId::kVisionGridThw) {
    auto* out = reinterpret_cast<std::int64_t*>(destination.data());
    const bool language = id == TensorId::kLanguagePositionIds;
    for (std::uint64_t i = 0; i < count; ++i) {
      out[i] = language ? input_values::language_position_element(rule, i) : input_values::grid_element(rule, i);
    }
    return;
  }
  auto* out = reinterpret_cast<__nv_bfloat16*>(destination.data());
  for (std::uint64_t i = 0; i < count; ++i) out[i] = input_values::normal_element(rule, i);
}

}  // namespace vlb
