#pragma once
// Which timed calls have their output checked after timing: a uniform random sample of a few timed calls (reservoir
// sampling, since an adaptive stop decides the number of calls only as it goes), drawn from a generator that nothing
// in the plan determines, so a solution cannot know which of its calls count; the last timed call is checked too.
// The sampled outputs are set aside on the device right after their call, outside the timed window.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "harness/core/device_buffer.hpp"

namespace vlb {

inline constexpr int kSampledTimedCalls = 3;

// Algorithm R: after n offers, every offered item is in the sample with probability capacity / n.
class Reservoir {
 public:
  Reservoir(int capacity, std::uint64_t seed);
  // Offers the next item: the slot to store it in, or nullopt to drop it.
  std::optional<int> offer();
  int capacity() const { return capacity_; }

 private:
  int capacity_;
  std::int64_t offered_ = 0;
  std::mt19937_64 generator_;
};

class TimedOutputSample {
 public:
  TimedOutputSample(int capacity, std::size_t output_bytes);  // seeded from std::random_device
  static std::size_t bytes_needed(int capacity, std::size_t output_bytes) { return capacity * output_bytes; }

  // After call `call` has completed: maybe copies its output aside (device to device, on `stream`).
  void offer(int call, const void* output, cudaStream_t stream);
  // The sampled calls in call order, each with its stored output.
  struct Entry {
    int call;
    const void* output;
  };
  std::vector<Entry> entries() const;

 private:
  Reservoir reservoir_;
  std::size_t output_bytes_;
  DeviceBuffer storage_;
  std::vector<int> calls_;  // per slot; -1 while empty
};

}  // namespace vlb
