// arm_guard_zones and inspect_guard_zones: one launch fills (or checks) every zone of a call.
#include <array>
#include <stdexcept>

#include "harness/check/guard_zones.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/device_buffer.hpp"

namespace vlb {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerZone = 64;  // zones reach a few MiB: every byte is read after every call
constexpr int kMaxZones = 2 * kMaxGuardedBuffers;

// Zone z of a call: its first byte and its length; the pattern depends on (key, z, byte index) only.
struct ZoneTable {
  std::array<unsigned char*, kMaxZones> start{};
  std::array<std::uint64_t, kMaxZones> bytes{};
  int count = 0;
};

__device__ unsigned char pattern_byte(std::uint64_t key, int zone, std::uint64_t index) {
  std::uint64_t x = key ^ (static_cast<std::uint64_t>(zone) << 48) ^ (index >> 3);
  x += 0x9e3779b97f4a7c15ull;  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<unsigned char>(x >> (8 * (index & 7)));
}

__global__ void arm_kernel(ZoneTable table, std::uint64_t key) {
  const int zone = blockIdx.y;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < table.bytes[zone];
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    table.start[zone][i] = pattern_byte(key, zone, i);
  }
}

__global__ void inspect_kernel(ZoneTable table, std::uint64_t key, unsigned long long* changed) {
  const int zone = blockIdx.y;
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < table.bytes[zone];
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    mine += table.start[zone][i] != pattern_byte(key, zone, i) ? 1 : 0;
  }
  if (mine != 0) atomicAdd(changed + zone, mine);
}

ZoneTable zones_of(std::span<const GuardedBuffer> buffers) {
  if (buffers.size() > static_cast<std::size_t>(kMaxGuardedBuffers)) {
    throw std::invalid_argument("guard zones: more buffers than kMaxGuardedBuffers");
  }
  ZoneTable table;
  for (const GuardedBuffer& buffer : buffers) {
    auto* data = static_cast<unsigned char*>(buffer.data);
    table.bytes[table.count] = buffer.zone_before;
    table.start[table.count++] = data - buffer.zone_before;
    table.bytes[table.count] = buffer.zone_after;
    table.start[table.count++] = data + buffer.bytes;
  }
  return table;
}

}  // namespace

void arm_guard_zones(std::span<const GuardedBuffer> buffers, std::uint64_t key, cudaStream_t stream) {
  const ZoneTable table = zones_of(buffers);
  if (table.count == 0) return;
  arm_kernel<<<dim3(kBlocksPerZone, table.count), kThreads, 0, stream>>>(table, key);
  VLB_CHECK_LAUNCH();
}

std::vector<GuardDamage> inspect_guard_zones(std::span<const GuardedBuffer> buffers, std::uint64_t key,
                                             cudaStream_t stream) {
  const ZoneTable table = zones_of(buffers);
  if (table.count == 0) return {};
  DeviceBuffer counters(sizeof(unsigned long long) * table.count);
  VLB_CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream));
  inspect_kernel<<<dim3(kBlocksPerZone, table.count), kThreads, 0, stream>>>(table, key,
                                                                             counters.as<unsigned long long>());
  VLB_CHECK_LAUNCH();
  std::array<unsigned long long, kMaxZones> changed{};
  VLB_CUDA_CHECK(cudaMemcpyAsync(changed.data(), counters.data(), counters.bytes(), cudaMemcpyDeviceToHost, stream));
  VLB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<GuardDamage> damage;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const auto before = static_cast<std::size_t>(changed[2 * b]);
    const auto after = static_cast<std::size_t>(changed[2 * b + 1]);
    if (before != 0 || after != 0) damage.push_back({buffers[b].name, before, after});
  }
  return damage;
}

}  // namespace vlb
