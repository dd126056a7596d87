// modified_inputs names exactly the inputs whose fingerprints changed (the device hashing is in the GPU tests).
#include <catch2/catch.hpp>

#include "harness/check/guards.hpp"

TEST_CASE("modified_inputs lists the changed inputs in the definition's order", "[check][guards]") {
  vlb::InputFingerprints before{};
  for (int i = 0; i < vlb::kNumInputs; ++i) before[i] = 0x1234567890abcdefull * static_cast<std::uint64_t>(i + 1);
  auto after = before;
  CHECK(vlb::modified_inputs(before, after).empty());
  after[static_cast<int>(vlb::TensorId::kQProjBias)] ^= 1;
  CHECK(vlb::modified_inputs(before, after) == "q_proj_bias");
  after[static_cast<int>(vlb::TensorId::kLanguageHiddenStates)] += 1;
  CHECK(vlb::modified_inputs(before, after) == "language_hidden_states, q_proj_bias");
}
