#pragma once
// Whether a pointer meets the 16-byte alignment that TMA and 16-byte vector accesses need.
#include <cstdint>

namespace vlb::fused_b200 {

inline bool aligned_16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace vlb::fused_b200
