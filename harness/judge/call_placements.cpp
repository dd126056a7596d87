#include "harness/judge/call_placements.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace vlb {
namespace {

std::size_t shifting_allocation_bytes(std::size_t bytes, int calls) {
  return 2 * kGuardZoneBytes + bytes + kPlacementShiftBytes * static_cast<std::size_t>(calls - 1);
}

std::size_t workspace_allocation_bytes(std::size_t bytes) { return bytes == 0 ? 0 : 2 * kGuardZoneBytes + bytes; }

}  // namespace

CallPlacements::CallPlacements(const ProblemShape& shape, std::size_t workspace_bytes, int calls)
    : shape_(shape), calls_(calls), workspace_bytes_(workspace_bytes) {
  if (calls <= 0) throw std::invalid_argument("call placements need at least one call");
  for (int i = 0; i < kNumInputs; ++i) {
    inputs_[i] = DeviceBuffer(shifting_allocation_bytes(tensor_spec(static_cast<TensorId>(i), shape).bytes(), calls));
  }
  output_ = DeviceBuffer(shifting_allocation_bytes(tensor_spec(TensorId::kOutput, shape).bytes(), calls));
  workspace_ = DeviceBuffer(workspace_allocation_bytes(workspace_bytes));
}

std::size_t CallPlacements::bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes, int calls) {
  std::size_t total = workspace_allocation_bytes(workspace_bytes);
  for (const TensorSpec& spec : tensor_specs(shape)) total += shifting_allocation_bytes(spec.bytes(), calls);
  return total;
}

std::byte* CallPlacements::placed(const DeviceBuffer& buffer, int call) const {
  if (call < 0 || call >= calls_) throw std::out_of_range(fmt::format("call {} outside 0..{}", call, calls_ - 1));
  return static_cast<std::byte*>(buffer.data()) + kGuardZoneBytes + kPlacementShiftBytes * static_cast<std::size_t>(call);
}

std::array<void*, kNumInputs> CallPlacements::inputs(int call) const {
  std::array<void*, kNumInputs> pointers{};
  for (int i = 0; i < kNumInputs; ++i) pointers[i] = placed(inputs_[i], call);
  return pointers;
}

void* CallPlacements::output(int call) const { return placed(output_, call); }

void* CallPlacements::workspace() const {
  return workspace_bytes_ == 0 ? nullptr : static_cast<std::byte*>(workspace_.data()) + kGuardZoneBytes;
}

std::vector<GuardedBuffer> CallPlacements::guarded_buffers(int call) const {
  std::vector<GuardedBuffer> buffers;
  const std::array<void*, kNumInputs> placed_inputs = inputs(call);
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    buffers.push_back({std::string(tensor_name(id)), placed_inputs[i], tensor_spec(id, shape_).bytes()});
  }
  buffers.push_back({"output", output(call), tensor_spec(TensorId::kOutput, shape_).bytes()});
  if (workspace_bytes_ > 0) buffers.push_back({"workspace", workspace(), workspace_bytes_});
  return buffers;
}

}  // namespace vlb
