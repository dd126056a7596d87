// Around every call: its own inputs (the generator's for its seed) at addresses no earlier call saw, a NaN output, a
// workspace scrambled anew; afterwards a write outside a buffer (anywhere in its mapped memory) and a modified input
// are named. The placements lie at the end of their mappings, so the zone after each ends at the unmapped gap.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/judge/call_preparation.hpp"
#include "harness/judge/call_schedule.hpp"
#include "support/gpu_test.hpp"

namespace {

constexpr int kCalls = 6;

vlb::Case custom_case() {
  vlb::Case test_case;
  test_case.shape = {2, 37, 196};
  test_case.tolerance.atol = 0.01;
  return test_case;
}

std::vector<unsigned char> download(const void* device, std::size_t bytes) {
  std::vector<unsigned char> host(bytes);
  VLB_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
  return host;
}

std::array<const void*, vlb::kNumInputs> input_pointers(const vlb::FusionArgs& args) {
  const vlb::FusionInputs& in = args.inputs;
  return {in.language_hidden_states.data, in.vision_hidden_states.data, in.language_position_ids.data,
          in.vision_grid_thw.data,        in.q_proj_weight.data,        in.q_proj_bias.data,
          in.k_proj_weight.data,          in.k_proj_bias.data,          in.v_proj_weight.data,
          in.v_proj_bias.data,            in.o_proj_weight.data};
}

}  // namespace

TEST_CASE("every call gets its own inputs at new addresses, a NaN output and a new workspace", "[judge][gpu]") {
  vlb::testing::TestStream stream;
  const vlb::Case test_case = custom_case();
  constexpr std::size_t kWorkspace = 1000;
  vlb::CallPlacements placements(test_case.shape, kCalls, 0);
  placements.add_workspace(kWorkspace);
  vlb::CallPreparation preparation(test_case, placements, stream.get());

  std::set<const void*> seen;
  std::vector<unsigned char> previous_workspace;
  std::set<std::uint64_t> language_fingerprints;
  for (int call = 0; call < kCalls; ++call) {
    INFO("call " << call);
    const vlb::InputSettings settings{vlb::entropy_seed(), vlb::PositionPattern::kOfficial};
    preparation.prepare(call, settings);
    const vlb::FusionArgs args = preparation.arguments(call, stream.get());
    for (const void* pointer : input_pointers(args)) {
      CHECK(seen.insert(pointer).second);
      CHECK(reinterpret_cast<std::uintptr_t>(pointer) % 256 == 0);
    }
    CHECK(seen.insert(args.output.data).second);

    // The inputs are exactly the generator's for this call's settings.
    vlb::DeviceInputs expected(test_case.shape);
    expected.generate(settings, stream.get());
    const auto placed = vlb::fingerprint_inputs(input_pointers(args), test_case.shape, stream.get());
    CHECK(placed == vlb::fingerprint_inputs(expected, stream.get()));
    language_fingerprints.insert(placed[0]);

    const auto output = download(args.output.data, placements.output_bytes());
    for (std::size_t i = 0; i < output.size(); i += 2) {
      REQUIRE((output[i] == 0xC0 && output[i + 1] == 0x7F));  // bf16 quiet NaN, little-endian
    }
    REQUIRE(args.workspace_bytes == kWorkspace);
    const auto workspace = download(args.workspace, kWorkspace);
    CHECK(workspace != previous_workspace);
    previous_workspace = workspace;
    CHECK_FALSE(preparation.inspect(call).has_value());
  }
  CHECK(language_fingerprints.size() == kCalls);  // fresh values in every call, not only fresh addresses
}

TEST_CASE("the guard zones cover every mapped byte around a placement, and the unmapped gap begins after it",
          "[judge][gpu]") {
  const vlb::Case test_case = custom_case();
  vlb::CallPlacements placements(test_case.shape, kCalls, 0);
  placements.add_workspace(4096);
  for (int call = 0; call < kCalls; ++call) {
    std::size_t index = 0;
    for (const vlb::GuardedBuffer& buffer : placements.guarded_buffers(call)) {
      INFO(buffer.name << " of call " << call);
      CHECK(buffer.zone_before >= vlb::kGuardZoneBytes);
      CHECK(buffer.zone_after >= vlb::kGuardZoneBytes);
      // zone before + buffer + zone after is the whole mapping of its allocation.
      const std::size_t allocation = buffer.name == "output" ? 0 : buffer.name == "workspace" ? vlb::kNumInputs + 1 : index + 1;
      const vlb::SharedDeviceMemory& memory = placements.allocations().at(allocation);
      CHECK(static_cast<std::byte*>(buffer.data) - buffer.zone_before == memory.data());
      CHECK(buffer.zone_before + buffer.bytes + buffer.zone_after == memory.mapped_bytes());
      if (buffer.name != "output" && buffer.name != "workspace") ++index;
    }
  }
}

TEST_CASE("after a call, a write outside a buffer and a modified input are named", "[judge][gpu]") {
  vlb::testing::TestStream stream;
  const vlb::Case test_case = custom_case();
  vlb::CallPlacements placements(test_case.shape, kCalls, 0);
  placements.add_workspace(4096);
  vlb::CallPreparation preparation(test_case, placements, stream.get());
  const vlb::InputSettings settings{20260, vlb::PositionPattern::kOfficial};

  preparation.prepare(0, settings);
  vlb::FusionArgs args = preparation.arguments(0, stream.get());
  VLB_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<std::byte*>(args.output.data) + placements.output_bytes(), 0x5A, 8,
                                 stream.get()));
  auto reason = preparation.inspect(0);
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("byte(s) in the guard zone after output"));

  preparation.prepare(1, settings);
  args = preparation.arguments(1, stream.get());
  VLB_CUDA_CHECK(cudaMemsetAsync(static_cast<std::byte*>(args.workspace) - 16, 0, 16, stream.get()));
  reason = preparation.inspect(1);
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("guard zone before workspace"));

  // Far from the buffer but still mapped (the rounding before the placement region): still a guard zone.
  preparation.prepare(2, settings);
  const vlb::SharedDeviceMemory& bias_memory = placements.allocations().at(1 + static_cast<int>(vlb::TensorId::kVProjBias));
  VLB_CUDA_CHECK(cudaMemsetAsync(bias_memory.data(), 0x11, 4, stream.get()));
  reason = preparation.inspect(2);
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("byte(s) in the guard zone before v_proj_bias"));

  preparation.prepare(3, settings);
  args = preparation.arguments(3, stream.get());
  auto* bias = const_cast<vlb::bf16*>(args.inputs.k_proj_bias.data);
  VLB_CUDA_CHECK(cudaMemsetAsync(bias + 3, 0x42, 1, stream.get()));
  reason = preparation.inspect(3);
  REQUIRE(reason.has_value());
  CHECK(*reason == "the solution modified its input(s): k_proj_bias");
}
