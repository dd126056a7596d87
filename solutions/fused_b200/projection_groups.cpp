#include "solutions/fused_b200/projection_groups.hpp"

#include <utility>

namespace vlb::fused_b200 {
namespace {

// A TMA descriptor takes strides that are multiples of 16 bytes below 2^40 bytes.
constexpr std::int64_t kMaxTmaStrideBytes = std::int64_t{1} << 40;
constexpr std::int64_t kElementBytes = 2;  // bf16

}  // namespace

GroupedWeights group_weights(const ProjectionLaunch& launch) {
  GroupedWeights grouped;
  if (launch.shape.groups == 1) {
    grouped.group_stride = launch.shape.out_features * launch.shape.in_features;  // never stepped: L = 1
    return grouped;
  }
  auto first = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(launch.outputs[0].weight));
  auto second = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(launch.outputs[1].weight));
  grouped.swapped = second < first;
  if (grouped.swapped) std::swap(first, second);
  const std::int64_t difference_bytes = second - first;
  grouped.one_launch = difference_bytes > 0 && difference_bytes % 16 == 0 && difference_bytes < kMaxTmaStrideBytes;
  grouped.group_stride = difference_bytes / kElementBytes;
  return grouped;
}

}  // namespace vlb::fused_b200
