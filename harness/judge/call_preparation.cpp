#include "harness/judge/call_preparation.hpp"

#include <fmt/format.h>

#include "harness/check/guard_zones.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/worker/solution_call.hpp"

namespace vlb {
namespace {

std::array<const void*, kNumInputs> read_only(const std::array<void*, kNumInputs>& pointers) {
  std::array<const void*, kNumInputs> result{};
  for (int i = 0; i < kNumInputs; ++i) result[i] = pointers[i];
  return result;
}

}  // namespace

CallPreparation::CallPreparation(const Case& test_case, const CallPlacements& placements, cudaStream_t stream)
    : placements_(placements), shape_(test_case.shape), stream_(stream), source_(test_case.workload, test_case.shape, stream) {}

void CallPreparation::prepare(int call, const InputSettings& settings) {
  const std::array<void*, kNumInputs> inputs = placements_.inputs(call);
  source_.fill(settings, inputs, stream_);
  // Keys from entropy: nothing the worker has seen predicts the workspace's bytes or the guard pattern.
  scramble_bytes(placements_.workspace(), placements_.workspace_bytes(), entropy_seed(), stream_);
  guard_key_ = entropy_seed();
  arm_guard_zones(placements_.guarded_buffers(call), guard_key_, stream_);
  // The output last: whatever was written into it before the go (by anything that saw the inputs early) is gone.
  poison_bf16(placements_.output(call), tensor_spec(TensorId::kOutput, shape_).elements(), stream_);
  before_ = fingerprint_inputs(read_only(inputs), shape_, stream_);  // synchronizes the stream
}

std::optional<std::string> CallPreparation::inspect(int call) const {
  const std::string damage =
      describe_guard_damage(inspect_guard_zones(placements_.guarded_buffers(call), guard_key_, stream_));
  if (!damage.empty()) return damage;
  const InputFingerprints after = fingerprint_inputs(read_only(placements_.inputs(call)), shape_, stream_);
  const std::string modified = modified_inputs(before_, after);
  if (!modified.empty()) return fmt::format("the solution modified its input(s): {}", modified);
  return std::nullopt;
}

FusionArgs CallPreparation::arguments(int call, cudaStream_t stream) const {
  return make_fusion_args(shape_, make_fusion_inputs(shape_, read_only(placements_.inputs(call))),
                          static_cast<bf16*>(placements_.output(call)), placements_.workspace(),
                          placements_.workspace_bytes(), stream);
}

}  // namespace vlb
