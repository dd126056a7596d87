#include "harness/judge/timed_output_sample.hpp"

#include <algorithm>
#include <stdexcept>

#include "harness/core/cuda_check.hpp"

namespace vlb {

Reservoir::Reservoir(int capacity, std::uint64_t seed) : capacity_(capacity), generator_(seed) {
  if (capacity <= 0) throw std::invalid_argument("a reservoir needs a positive capacity");
}

std::optional<int> Reservoir::offer() {
  const std::int64_t index = offered_++;
  if (index < capacity_) return static_cast<int>(index);
  const std::int64_t draw = std::uniform_int_distribution<std::int64_t>(0, index)(generator_);
  if (draw < capacity_) return static_cast<int>(draw);
  return std::nullopt;
}

namespace {
std::uint64_t unpredictable_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}
}  // namespace

TimedOutputSample::TimedOutputSample(int capacity, std::size_t output_bytes)
    : reservoir_(capacity, unpredictable_seed()),
      output_bytes_(output_bytes),
      storage_(bytes_needed(capacity, output_bytes)),
      calls_(static_cast<std::size_t>(capacity), -1) {}

void TimedOutputSample::offer(int call, const void* output, cudaStream_t stream) {
  const std::optional<int> slot = reservoir_.offer();
  if (!slot) return;
  auto* destination = static_cast<std::byte*>(storage_.data()) + output_bytes_ * static_cast<std::size_t>(*slot);
  VLB_CUDA_CHECK(cudaMemcpyAsync(destination, output, output_bytes_, cudaMemcpyDeviceToDevice, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  calls_[*slot] = call;
}

std::vector<TimedOutputSample::Entry> TimedOutputSample::entries() const {
  std::vector<Entry> entries;
  for (std::size_t slot = 0; slot < calls_.size(); ++slot) {
    if (calls_[slot] < 0) continue;
    entries.push_back({calls_[slot], static_cast<const std::byte*>(storage_.data()) + output_bytes_ * slot});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.call < b.call; });
  return entries;
}

}  // namespace vlb
