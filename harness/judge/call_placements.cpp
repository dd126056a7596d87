#include "harness/judge/call_placements.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace vlb {
namespace {

// Bytes of a placement region: both guards, the tensor, and the shifts of the later calls.
std::size_t region_bytes(std::size_t bytes, int calls) {
  return 2 * kGuardZoneBytes + bytes + kPlacementShiftBytes * static_cast<std::size_t>(calls - 1);
}

std::size_t rounded(std::size_t bytes, std::size_t granule) { return (bytes + granule - 1) / granule * granule; }

// Where a region of `region` bytes starts in a mapping of `mapped` bytes: as late as the placements' 256-byte
// alignment allows, so that the guard zone after the last byte ends close to the unmapped gap.
std::size_t region_start(std::size_t mapped, std::size_t region) {
  return (mapped - region) / kPlacementShiftBytes * kPlacementShiftBytes;
}

TensorId input_of(int buffer) { return static_cast<TensorId>(buffer - 1); }

}  // namespace

CallPlacements::CallPlacements(const ProblemShape& shape, int calls, int device)
    : shape_(shape), calls_(calls), device_(device) {
  if (calls <= 0) throw std::invalid_argument("call placements need at least one call");
  for (int buffer = 0; buffer < kWorkspaceBuffer; ++buffer) {
    const std::size_t region = region_bytes(tensor_bytes(buffer), calls);
    allocations_.emplace_back(region, device);
    region_offsets_.push_back(region_start(allocations_.back().mapped_bytes(), region));
  }
}

std::size_t CallPlacements::bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes, int calls, int device) {
  const std::size_t granule = shared_memory_granularity(device);
  std::size_t total = workspace_bytes == 0 ? 0 : rounded(2 * kGuardZoneBytes + workspace_bytes, granule);
  total += rounded(region_bytes(tensor_spec(TensorId::kOutput, shape).bytes(), calls), granule);
  for (const TensorSpec& spec : tensor_specs(shape)) total += rounded(region_bytes(spec.bytes(), calls), granule);
  return total;
}

void CallPlacements::add_workspace(std::size_t bytes) {
  if (allocations_.size() != static_cast<std::size_t>(kWorkspaceBuffer)) throw std::logic_error("a second workspace");
  workspace_bytes_ = bytes;
  if (bytes == 0) return;
  const std::size_t region = 2 * kGuardZoneBytes + bytes;
  allocations_.emplace_back(region, device_);
  region_offsets_.push_back(region_start(allocations_.back().mapped_bytes(), region));
}

std::size_t CallPlacements::tensor_bytes(int buffer) const {
  if (buffer == kOutputBuffer) return tensor_spec(TensorId::kOutput, shape_).bytes();
  if (buffer == kWorkspaceBuffer) return workspace_bytes_;
  return tensor_spec(input_of(buffer), shape_).bytes();
}

std::size_t CallPlacements::output_bytes() const { return tensor_bytes(kOutputBuffer); }

std::size_t CallPlacements::placed_offset(int buffer, int call) const {
  if (call < 0 || call >= calls_) throw std::out_of_range(fmt::format("call {} outside 0..{}", call, calls_ - 1));
  const std::size_t shift = buffer == kWorkspaceBuffer ? 0 : kPlacementShiftBytes * static_cast<std::size_t>(call);
  return region_offsets_.at(static_cast<std::size_t>(buffer)) + kGuardZoneBytes + shift;
}

std::array<void*, kNumInputs> CallPlacements::inputs(int call) const {
  std::array<void*, kNumInputs> pointers{};
  for (int i = 0; i < kNumInputs; ++i) {
    pointers[i] = static_cast<std::byte*>(allocations_[1 + i].data()) + placed_offset(1 + i, call);
  }
  return pointers;
}

void* CallPlacements::output(int call) const {
  return static_cast<std::byte*>(allocations_[kOutputBuffer].data()) + placed_offset(kOutputBuffer, call);
}

void* CallPlacements::workspace() const {
  if (workspace_bytes_ == 0) return nullptr;
  return static_cast<std::byte*>(allocations_[kWorkspaceBuffer].data()) + placed_offset(kWorkspaceBuffer, 0);
}

std::vector<GuardedBuffer> CallPlacements::guarded_buffers(int call) const {
  std::vector<GuardedBuffer> buffers;
  auto add = [&](std::string name, int buffer, int placement_call) {
    const std::size_t offset = placed_offset(buffer, placement_call), bytes = tensor_bytes(buffer);
    const SharedDeviceMemory& allocation = allocations_[static_cast<std::size_t>(buffer)];
    buffers.push_back({std::move(name), static_cast<std::byte*>(allocation.data()) + offset, bytes, offset,
                       allocation.mapped_bytes() - offset - bytes});
  };
  for (int i = 0; i < kNumInputs; ++i) add(std::string(tensor_name(input_of(1 + i))), 1 + i, call);
  add("output", kOutputBuffer, call);
  if (workspace_bytes_ > 0) add("workspace", kWorkspaceBuffer, 0);
  return buffers;
}

std::string CallPlacements::allocation_name(int buffer) {
  if (buffer == kOutputBuffer) return "output";
  if (buffer == kWorkspaceBuffer) return "workspace";
  return std::string(tensor_name(input_of(buffer)));
}

protocol::BufferRef CallPlacements::output_ref(int call) const {
  return {kOutputBuffer, placed_offset(kOutputBuffer, call), tensor_bytes(kOutputBuffer)};
}

void CallPlacements::describe_call(int call, protocol::CallMessage& message) const {
  message.inputs.clear();
  for (int i = 0; i < kNumInputs; ++i) message.inputs.push_back({1 + i, placed_offset(1 + i, call), tensor_bytes(1 + i)});
  message.output = output_ref(call);
  message.workspace.reset();
  if (workspace_bytes_ > 0) message.workspace = protocol::BufferRef{kWorkspaceBuffer, placed_offset(kWorkspaceBuffer, 0), workspace_bytes_};
}

}  // namespace vlb
