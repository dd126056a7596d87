#pragma once
// Device memory for every call of one case: one allocation per input, one for the output and one for the workspace,
// each with a guard zone before and after the bytes a call sees, and room to place the inputs and the output 256
// bytes further on for every call (the leaderboard's shift), so that no call sees an address an earlier call saw.
//   allocation = [guard | placement of call 0 ... shifted by 256 bytes per call | guard]
#include <array>
#include <cstddef>
#include <vector>

#include "harness/check/guard_zones.hpp"
#include "harness/core/device_buffer.hpp"
#include "harness/core/problem.hpp"

namespace vlb {

inline constexpr std::size_t kPlacementShiftBytes = 256;

class CallPlacements {
 public:
  CallPlacements(const ProblemShape& shape, std::size_t workspace_bytes, int calls);
  static std::size_t bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes, int calls);

  // Where call `call` finds input `i` (tensor_spec(i, shape).bytes() bytes) and writes its output.
  std::array<void*, kNumInputs> inputs(int call) const;
  void* output(int call) const;
  void* workspace() const;  // nullptr when the solution asked for none
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // Every buffer of call `call` with its guard zones: the inputs, the output, the workspace (if any).
  std::vector<GuardedBuffer> guarded_buffers(int call) const;
  const ProblemShape& shape() const { return shape_; }

 private:
  std::byte* placed(const DeviceBuffer& buffer, int call) const;

  ProblemShape shape_;
  int calls_;
  std::size_t workspace_bytes_;
  std::array<DeviceBuffer, kNumInputs> inputs_;
  DeviceBuffer output_;
  DeviceBuffer workspace_;
};

}  // namespace vlb
