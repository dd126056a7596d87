// Around every call: its own inputs (the generator's for its seed) at addresses no earlier call saw, a NaN output, a
// workspace scrambled anew; afterwards a write outside a buffer and a modified input are named.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/judge/call_protocol.hpp"
#include "support/gpu_test.hpp"

namespace {

vlb::RunPlan small_plan() {
  vlb::RunPlan plan;
  plan.seed = 321;
  plan.correctness.rounds = 2;
  plan.timing.warmup_iterations = 1;
  plan.timing.timed_iterations = 3;
  return plan;
}

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

TEST_CASE("every call gets its own inputs at new addresses, a NaN output and a new workspace", "[runner][gpu]") {
  vlb::testing::TestStream stream;
  const vlb::RunPlan plan = small_plan();
  const vlb::CallSchedule schedule(plan);
  const vlb::Case test_case = custom_case();
  constexpr std::size_t kWorkspace = 1000;
  vlb::CallProtocol protocol(test_case, schedule, kWorkspace, stream.get());
  REQUIRE(schedule.max_calls() == 6);

  std::set<const void*> seen;
  std::vector<unsigned char> previous_workspace;
  std::set<std::uint64_t> language_fingerprints;
  for (int call = 0; call < schedule.max_calls(); ++call) {
    INFO("call " << call);
    const vlb::FusionArgs args = protocol.prepare(call, stream.get());
    for (const void* pointer : input_pointers(args)) {
      CHECK(seen.insert(pointer).second);
      CHECK(reinterpret_cast<std::uintptr_t>(pointer) % 256 == 0);
    }
    CHECK(seen.insert(args.output.data).second);

    // The inputs are exactly the generator's for this call's settings.
    vlb::DeviceInputs expected(test_case.shape);
    expected.generate(schedule.settings(call), stream.get());
    const auto placed = vlb::fingerprint_inputs(input_pointers(args), test_case.shape, stream.get());
    CHECK(placed == vlb::fingerprint_inputs(expected, stream.get()));
    language_fingerprints.insert(placed[0]);

    const auto output = download(args.output.data, vlb::tensor_spec(vlb::TensorId::kOutput, test_case.shape).bytes());
    for (std::size_t i = 0; i < output.size(); i += 2) {
      REQUIRE((output[i] == 0xC0 && output[i + 1] == 0x7F));  // bf16 quiet NaN, little-endian
    }
    REQUIRE(args.workspace_bytes == kWorkspace);
    const auto workspace = download(args.workspace, kWorkspace);
    CHECK(workspace != previous_workspace);
    previous_workspace = workspace;
    CHECK_FALSE(protocol.inspect(call, stream.get()).has_value());
  }
  CHECK(language_fingerprints.size() == 6);  // fresh values in every call, not only fresh addresses
}

TEST_CASE("after a call, a write outside a buffer and a modified input are named", "[runner][gpu]") {
  vlb::testing::TestStream stream;
  const vlb::RunPlan plan = small_plan();
  const vlb::CallSchedule schedule(plan);
  vlb::CallProtocol protocol(custom_case(), schedule, 4096, stream.get());

  vlb::FusionArgs args = protocol.prepare(0, stream.get());
  const std::size_t output_bytes = protocol.output_bytes();
  VLB_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<std::byte*>(args.output.data) + output_bytes, 0x5A, 8, stream.get()));
  auto reason = protocol.inspect(0, stream.get());
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("guard zone after output"));

  args = protocol.prepare(1, stream.get());
  VLB_CUDA_CHECK(cudaMemsetAsync(static_cast<std::byte*>(args.workspace) - 16, 0, 16, stream.get()));
  reason = protocol.inspect(1, stream.get());
  REQUIRE(reason.has_value());
  CHECK_THAT(*reason, Catch::Contains("guard zone before workspace"));

  args = protocol.prepare(2, stream.get());
  auto* bias = const_cast<vlb::bf16*>(args.inputs.k_proj_bias.data);
  VLB_CUDA_CHECK(cudaMemsetAsync(bias + 3, 0x42, 1, stream.get()));
  reason = protocol.inspect(2, stream.get());
  REQUIRE(reason.has_value());
  CHECK(*reason == "the solution modified its input(s): k_proj_bias");

  // The output as written comes back byte for byte.
  args = protocol.prepare(3, stream.get());
  VLB_CUDA_CHECK(cudaMemsetAsync(args.output.data, 0x3C, output_bytes, stream.get()));
  const std::vector<std::byte> copied = protocol.copy_output(3, stream.get());
  REQUIRE(copied.size() == output_bytes);
  for (std::byte value : copied) REQUIRE(value == std::byte{0x3C});
}
