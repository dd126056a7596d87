#pragma once
// Builds the ElementRule of a tensor from the settings (shared by generator.cpp and generator.cu).
#include <string>

#include "harness/inputs/generator.hpp"
#include "harness/inputs/tensor_elements.hpp"

namespace vlb::input_values {

inline ElementRule element_rule(TensorId id, const ProblemShape& shape, const InputSettings& settings) {
  ElementRule rule;
  rule.seed = settings.seed;
  rule.stream = stream_id(std::string(tensor_name(id)).c_str());
  const bool hidden = id == TensorId::kLanguageHiddenStates || id == TensorId::kVisionHiddenStates;
  rule.scale = hidden ? 1.0f : 0.02f;
  rule.random_positions = settings.positions == PositionPattern::kRandom;
  rule.lang_seq = shape.lang_seq;
  rule.vision_seq = shape.vision_seq;
  return rule;
}

}  // namespace vlb::input_values
