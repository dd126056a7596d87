#include "solutions/fused_b200/projection_groups.hpp"

#include <cstdint>
#include <utility>

namespace vlb::fused_b200 {

std::optional<std::int64_t> element_stride(const void* first, const void* second) {
  constexpr std::int64_t kAlignmentBytes = 16;
  const auto difference = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(second)) -
                          static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(first));
  if (difference % kAlignmentBytes != 0) return std::nullopt;
  return difference / static_cast<std::int64_t>(sizeof(bf16));
}

std::optional<std::int64_t> forward_stride(const void* first, const void* second, std::int64_t limit_bytes) {
  const std::optional<std::int64_t> stride = element_stride(first, second);
  if (!stride || *stride <= 0 || *stride * static_cast<std::int64_t>(sizeof(bf16)) >= limit_bytes) return std::nullopt;
  return stride;
}

GroupedWeights group_weights(const ProjectionLaunch& launch) {
  GroupedWeights grouped;
  if (launch.shape.groups == 1) {
    grouped.group_stride = launch.shape.out_features * launch.shape.in_features;  // never stepped: L = 1
    return grouped;
  }
  const void* first = launch.outputs[0].weight;
  const void* second = launch.outputs[1].weight;
  grouped.swapped = reinterpret_cast<std::uintptr_t>(second) < reinterpret_cast<std::uintptr_t>(first);
  if (grouped.swapped) std::swap(first, second);
  const std::optional<std::int64_t> stride = forward_stride(first, second, kMaxTmaStrideBytes);
  grouped.one_launch = stride.has_value();
  grouped.group_stride = stride.value_or(0);
  return grouped;
}

}  // namespace vlb::fused_b200
