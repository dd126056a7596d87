#pragma once
// Device memory for every call of one case, owned by the judge and shared with the worker (one exportable allocation
// per tensor, isolation/shared_device_memory.hpp): for each input and for the output, room to place it 256 bytes
// further on for every call (the leaderboard's shift), so that no call sees an address an earlier call saw; and the
// workspace the solution asked for. Each placement region sits at the end of its allocation (as far as the 256-byte
// alignment of every placement allows), so that the guard zone after a placement ends at the unmapped gap, and
// everything mapped around a placement is its guard zone:
//   allocation = [guard: rounding + 64 KiB | placement of call 0 ... shifted by 256 bytes per call | 64 KiB guard]
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "harness/check/guard_zones.hpp"
#include "harness/core/problem.hpp"
#include "harness/isolation/shared_device_memory.hpp"
#include "harness/isolation/worker_protocol.hpp"

namespace vlb {

inline constexpr std::size_t kPlacementShiftBytes = 256;

class CallPlacements {
 public:
  // The output's and the inputs' allocations on `device`, for `calls` calls.
  CallPlacements(const ProblemShape& shape, int calls, int device);
  // Bytes of device memory the case's placements take (the workspace's included), for the memory check.
  static std::size_t bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes, int calls, int device);

  // The workspace, once the solution has said how large (none for 0 bytes).
  void add_workspace(std::size_t bytes);

  // In this process's address space: where call `call` finds input `i` and writes its output.
  std::array<void*, kNumInputs> inputs(int call) const;
  void* output(int call) const;
  void* workspace() const;  // nullptr when the solution asked for none
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  std::size_t output_bytes() const;
  // Every buffer of call `call` with its guard zones: the inputs, the output, the workspace (if any).
  std::vector<GuardedBuffer> guarded_buffers(int call) const;

  // The allocations in the order they are shared with a worker: the output, the inputs in the definition's order,
  // then the workspace (shared later, once it exists); and how a call finds its tensors in them.
  const std::vector<SharedDeviceMemory>& allocations() const { return allocations_; }
  static constexpr int kOutputBuffer = 0;
  static constexpr int kWorkspaceBuffer = 1 + kNumInputs;
  static std::string allocation_name(int buffer);  // "output", "q_proj_weight", ..., "workspace"
  void describe_call(int call, protocol::CallMessage& message) const;
  protocol::BufferRef output_ref(int call) const;

 private:
  std::size_t placed_offset(int buffer, int call) const;
  std::size_t tensor_bytes(int buffer) const;

  ProblemShape shape_;
  int calls_;
  int device_;
  std::size_t workspace_bytes_ = 0;
  std::vector<SharedDeviceMemory> allocations_;
  std::vector<std::size_t> region_offsets_;  // where each allocation's placement region starts (its first guard)
};

}  // namespace vlb
