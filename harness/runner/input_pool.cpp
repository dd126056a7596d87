#include "harness/runner/input_pool.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace vlb {

ShiftingInputPool::ShiftingInputPool(const DeviceInputs& source, int iterations)
    : source_(source), iterations_(iterations) {
  if (iterations <= 0) throw std::invalid_argument("a pool needs at least one iteration");
  const std::size_t room = kPoolShiftBytes * static_cast<std::size_t>(iterations);
  for (int i = 0; i < kNumInputs; ++i) inputs_[i] = DeviceBuffer(source.bytes(static_cast<TensorId>(i)) + room);
  output_ = DeviceBuffer(tensor_spec(TensorId::kOutput, source.shape()).bytes() + room);
}

std::size_t ShiftingInputPool::shift(int iteration) const {
  if (iteration < 0 || iteration >= iterations_) {
    throw std::out_of_range(fmt::format("pool placement {} outside 0..{}", iteration, iterations_ - 1));
  }
  return kPoolShiftBytes * static_cast<std::size_t>(iteration);
}

FusionInputs ShiftingInputPool::place(int iteration, cudaStream_t stream) {
  const std::size_t offset = shift(iteration);
  std::array<const void*, kNumInputs> pointers{};
  for (int i = 0; i < kNumInputs; ++i) {
    const auto id = static_cast<TensorId>(i);
    auto* destination = static_cast<std::byte*>(inputs_[i].data()) + offset;
    VLB_CUDA_CHECK(
        cudaMemcpyAsync(destination, source_.data(id), source_.bytes(id), cudaMemcpyDeviceToDevice, stream));
    pointers[i] = destination;
  }
  return make_fusion_inputs(source_.shape(), pointers);
}

bf16* ShiftingInputPool::output(int iteration) const {
  return reinterpret_cast<bf16*>(static_cast<std::byte*>(output_.data()) + shift(iteration));
}

std::size_t ShiftingInputPool::total_bytes() const {
  std::size_t total = output_.bytes();
  for (const auto& buffer : inputs_) total += buffer.bytes();
  return total;
}

std::size_t ShiftingInputPool::bytes_needed(const ProblemShape& shape, int iterations) {
  const std::size_t room = kPoolShiftBytes * static_cast<std::size_t>(iterations);
  std::size_t total = 0;
  for (const TensorSpec& spec : tensor_specs(shape)) total += spec.bytes() + room;
  return total;
}

}  // namespace vlb
