// poison_bf16, scramble_bytes and the fingerprints: device kernels of the guards against broken and dishonest
// solutions.
#include <cstdint>
#include <stdexcept>
#include <vector>

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

__global__ void scramble_kernel(unsigned char* data, std::uint64_t bytes, bool aligned, std::uint64_t key) {
  for (std::uint64_t word = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; 8 * word < bytes;
       word += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t value = mix64(key ^ mix64(word));
    if (aligned && 8 * word + 8 <= bytes) {
      reinterpret_cast<std::uint64_t*>(data)[word] = value;
    } else {
      for (std::uint64_t b = 0; b < 8 && 8 * word + b < bytes; ++b) {
        data[8 * word + b] = static_cast<unsigned char>(value >> (8 * b));
      }
    }
  }
}

}  // namespace

void poison_bf16(void* data, std::int64_t elements, cudaStream_t stream) {
  if (elements <= 0) return;
  poison_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), elements);
  VLB_CHECK_LAUNCH();
}

void scramble_bytes(void* data, std::size_t bytes, std::uint64_t key, cudaStream_t stream) {
  if (bytes == 0) return;
  scramble_kernel<<<blocks_for(static_cast<std::int64_t>((bytes + 7) / 8)), kThreads, 0, stream>>>(
      static_cast<unsigned char*>(data), bytes, reinterpret_cast<std::uintptr_t>(data) % 8 == 0, key);
  VLB_CHECK_LAUNCH();
}

void fingerprint_ranges(std::span<const void* const> data, std::span<const std::size_t> bytes,
                        std::span<std::uint64_t> fingerprints, cudaStream_t stream) {
  if (data.size() != bytes.size() || data.size() != fingerprints.size()) {
    throw std::invalid_argument("fingerprint_ranges: data, bytes and fingerprints differ in length");
  }
  if (data.empty()) return;
  DeviceBuffer accumulators(sizeof(unsigned long long) * data.size());
  VLB_CUDA_CHECK(cudaMemsetAsync(accumulators.data(), 0, accumulators.bytes(), stream));
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (bytes[i] == 0) continue;
    const bool aligned = reinterpret_cast<std::uintptr_t>(data[i]) % 8 == 0;
    fingerprint_kernel<<<blocks_for(static_cast<std::int64_t>((bytes[i] + 7) / 8)), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(data[i]), bytes[i], aligned, accumulators.as<unsigned long long>() + i);
    VLB_CHECK_LAUNCH();
  }
  std::vector<unsigned long long> sums(data.size());
  VLB_CUDA_CHECK(cudaMemcpyAsync(sums.data(), accumulators.data(), accumulators.bytes(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  // The length too: a zero-padded tail differs from real zero bytes.
  for (std::size_t i = 0; i < data.size(); ++i) fingerprints[i] = mix64(sums[i] ^ mix64(bytes[i]));
}

std::uint64_t fingerprint_bytes(const void* device_data, std::size_t bytes, cudaStream_t stream) {
  std::uint64_t fingerprint = 0;
  fingerprint_ranges({&device_data, 1}, {&bytes, 1}, {&fingerprint, 1}, stream);
  return fingerprint;
}

}  // namespace vlb
