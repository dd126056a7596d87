#include "harness/judge/call_protocol.hpp"

#include <fmt/format.h>

#include "harness/check/guard_zones.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/worker/solution_call.hpp"

namespace vlb {
namespace {

std::array<const void*, kNumInputs> read_only(const std::array<void*, kNumInputs>& pointers) {
  std::array<const void*, kNumInputs> result{};
  for (int i = 0; i < kNumInputs; ++i) result[i] = pointers[i];
  return result;
}

}  // namespace

CallProtocol::CallProtocol(const Case& test_case, const CallSchedule& schedule, std::size_t workspace_bytes,
                           cudaStream_t stream)
    : schedule_(schedule),
      shape_(test_case.shape),
      source_(test_case.workload, test_case.shape, stream),
      placements_(test_case.shape, workspace_bytes, schedule.max_calls()) {}

std::size_t CallProtocol::bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes,
                                       const CallSchedule& schedule) {
  return CallPlacements::bytes_needed(shape, workspace_bytes, schedule.max_calls());
}

std::size_t CallProtocol::output_bytes() const { return tensor_spec(TensorId::kOutput, shape_).bytes(); }

std::uint64_t CallProtocol::call_key(int call) const {
  // Distinct from the input seeds' use (Philox keys) by a fixed odd constant.
  return schedule_.settings(call).seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

FusionArgs CallProtocol::prepare(int call, cudaStream_t stream) {
  const std::array<void*, kNumInputs> inputs = placements_.inputs(call);
  source_.fill(schedule_.settings(call), inputs, stream);
  poison_bf16(placements_.output(call), tensor_spec(TensorId::kOutput, shape_).elements(), stream);
  scramble_bytes(placements_.workspace(), placements_.workspace_bytes(), call_key(call), stream);
  arm_guard_zones(placements_.guarded_buffers(call), call_key(call), stream);
  before_ = fingerprint_inputs(read_only(inputs), shape_, stream);

  return make_fusion_args(shape_, make_fusion_inputs(shape_, read_only(inputs)),
                          static_cast<bf16*>(placements_.output(call)), placements_.workspace(),
                          placements_.workspace_bytes(), stream);
}

std::optional<std::string> CallProtocol::inspect(int call, cudaStream_t stream) const {
  const std::string damage = describe_guard_damage(inspect_guard_zones(placements_.guarded_buffers(call), call_key(call), stream));
  if (!damage.empty()) return damage;
  const std::string modified = modified_inputs(before_, fingerprint_inputs(read_only(placements_.inputs(call)), shape_, stream));
  if (!modified.empty()) return fmt::format("the solution modified its input(s): {}", modified);
  return std::nullopt;
}

std::vector<std::byte> CallProtocol::copy_output(int call, cudaStream_t stream) const {
  std::vector<std::byte> host(output_bytes());
  VLB_CUDA_CHECK(cudaMemcpyAsync(host.data(), placements_.output(call), host.size(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace vlb
