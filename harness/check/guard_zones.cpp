// describe_guard_damage (the zone kernels are in guard_zones.cu).
#include <fmt/format.h>

#include "harness/check/guard_zones.hpp"

namespace vlb {

std::string describe_guard_damage(const std::vector<GuardDamage>& damage) {
  std::string zones;
  auto add = [&](std::size_t bytes, const char* side, const std::string& name) {
    if (bytes == 0) return;
    zones += fmt::format("{}{} byte(s) in the guard zone {} {}", zones.empty() ? "" : "; ", bytes, side, name);
  };
  for (const GuardDamage& buffer : damage) {
    add(buffer.bytes_before, "before", buffer.name);
    add(buffer.bytes_after, "after", buffer.name);
  }
  if (zones.empty()) return {};
  return fmt::format("the solution wrote outside the buffers it was given: {} (the guard zones cover all memory "
                     "mapped around each buffer, at least {} bytes on each side)", zones, kGuardZoneBytes);
}

}  // namespace vlb
