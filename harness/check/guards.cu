// poison_bf16 and fingerprint_bytes: device kernels of the guards against broken and dishonest solutions.
#include <cstdint>

#include "harness/check/guards.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"

namespace vlb {

namespace {
constexpr int kThreads = 256;
constexpr int kMaxBlocks = 2048;
constexpr std::uint16_t kQuietNanBf16 = 0x7FC0;

int blocks_for(std::int64_t work) {
  const std::int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

__global__ void poison_kernel(std::uint16_t* data, std::int64_t elements) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < elements;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    data[i] = kQuietNanBf16;
  }
}

// splitmix64's finalizer: a bijection of 64-bit words with good avalanche.
__host__ __device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Word k (8 bytes, the last one zero-padded) contributes mix64(word + mix64(k)): for a fixed k a bijection of the
// word, so any change of any byte changes that term and hence the sum modulo 2^64; the index makes it positional.
__global__ void fingerprint_kernel(const unsigned char* data, std::uint64_t bytes, bool aligned,
                                   unsigned long long* sum) {
  const std::uint64_t words = (bytes + 7) / 8;
  std::uint64_t local = 0;
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < words;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t word = 0;
    if (aligned && 8 * k + 8 <= bytes) {
      word = reinterpret_cast<const std::uint64_t*>(data)[k];
    } else {
      for (std::uint64_t b = 0; b < 8 && 8 * k + b < bytes; ++b) word |= std::uint64_t{data[8 * k + b]} << (8 * b);
    }
    local += mix64(word + mix64(k));
  }
  __shared__ unsigned long long partials[kThreads];
  partials[threadIdx.x] = local;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partials[threadIdx.x] += partials[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partials[0]);  // addition modulo 2^64 commutes: the order is irrelevant
}
}  // namespace

void poison_bf16(void* data, std::int64_t elements, cudaStream_t stream) {
  if (elements <= 0) return;
  poison_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), elements);
  VLB_CHECK_LAUNCH();
}

std::uint64_t fingerprint_bytes(const void* device_data, std::size_t bytes, cudaStream_t stream) {
  unsigned long long sum = 0;
  if (bytes > 0) {
    DeviceBuffer accumulator(sizeof(unsigned long long));
    VLB_CUDA_CHECK(cudaMemsetAsync(accumulator.data(), 0, accumulator.bytes(), stream));
    const bool aligned = reinterpret_cast<std::uintptr_t>(device_data) % 8 == 0;
    fingerprint_kernel<<<blocks_for(static_cast<std::int64_t>((bytes + 7) / 8)), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(device_data), bytes, aligned, accumulator.as<unsigned long long>());
    VLB_CHECK_LAUNCH();
    VLB_CUDA_CHECK(cudaMemcpyAsync(&sum, accumulator.data(), sizeof(sum), cudaMemcpyDeviceToHost, stream));
    VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return mix64(sum ^ mix64(bytes));  // the length too: a zero-padded tail differs from real zero bytes
}

}  // namespace vlb
