#pragma once
// Guard zones: bytes of a known pattern just before and just after every buffer a solution is handed (each input
// placement, the output, the workspace), written before a call and inspected after it, so that a write outside a
// buffer is caught and measured (REWARD_HACK naming the buffer and the byte count). Each buffer's zones cover all the
// memory mapped around it in its allocation, at least kGuardZoneBytes on each side; past that lie unmapped pages
// (isolation/shared_device_memory.hpp), where an access faults.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vlb {

// Bytes of each zone: a multiple of 256, so that a guarded buffer keeps the 256-byte alignment of its allocation.
inline constexpr std::size_t kGuardZoneBytes = std::size_t{64} << 10;

// A buffer with memory owned by the caller right before `data` (zone_before bytes) and right after `data + bytes`
// (zone_after bytes).
struct GuardedBuffer {
  std::string name;  // "output", "workspace", "q_proj_bias", ...
  void* data = nullptr;
  std::size_t bytes = 0;
  std::size_t zone_before = kGuardZoneBytes;
  std::size_t zone_after = kGuardZoneBytes;
};

// Bytes that differ from the pattern in the zones of one buffer.
struct GuardDamage {
  std::string name;
  std::size_t bytes_before = 0;  // in the zone before the buffer
  std::size_t bytes_after = 0;   // in the zone after it
};

// Writes the pattern (a pure function of `key`, the zone and the byte index) into both zones of every buffer, on
// `stream`. At most kMaxGuardedBuffers buffers.
inline constexpr int kMaxGuardedBuffers = 16;
void arm_guard_zones(std::span<const GuardedBuffer> buffers, std::uint64_t key, cudaStream_t stream);

// Compares every zone with the pattern of `key` (synchronizes `stream`); one entry per buffer with damage.
std::vector<GuardDamage> inspect_guard_zones(std::span<const GuardedBuffer> buffers, std::uint64_t key,
                                             cudaStream_t stream);

// "the solution wrote outside the buffers it was given: 256 byte(s) in the guard zone after output; ..." (empty: no
// damage).
std::string describe_guard_damage(const std::vector<GuardDamage>& damage);

}  // namespace vlb
