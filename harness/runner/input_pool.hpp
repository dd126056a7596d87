#pragma once
// Inputs for timed calls at addresses no earlier call saw: one pool per tensor with room to shift the data by
// 256 bytes per iteration (the leaderboard's way), so that a result cache keyed by pointer gains nothing. The copy
// into the pool is made before the L2 flush, outside the timed window.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>

#include "harness/core/device_buffer.hpp"
#include "harness/inputs/input_set.hpp"

namespace vlb {

inline constexpr std::size_t kPoolShiftBytes = 256;

class ShiftingInputPool {
 public:
  // Room for `iterations` distinct placements of every input and of the output.
  ShiftingInputPool(const DeviceInputs& source, int iterations);

  // Copies the source inputs to placement `iteration` (enqueued on `stream`) and returns the views of that placement.
  FusionInputs place(int iteration, cudaStream_t stream);
  bf16* output(int iteration) const;
  std::size_t total_bytes() const;
  static std::size_t bytes_needed(const ProblemShape& shape, int iterations);

 private:
  std::size_t shift(int iteration) const;

  const DeviceInputs& source_;
  int iterations_;
  std::array<DeviceBuffer, kNumInputs> inputs_;
  DeviceBuffer output_;
};

}  // namespace vlb
