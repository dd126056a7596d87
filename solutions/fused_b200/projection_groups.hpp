#pragma once
// How a launch's groups (K and V) become one GEMM launch: the two weights as one tensor whose L stride is their
// address difference (ordered so that it is positive), or one launch per group where no TMA stride can express it.
// Architecture-neutral host code, used by the sm90 and sm100 launchers.
#include <cstdint>

#include "solutions/fused_b200/projection_gemm.hpp"

namespace vlb::fused_b200 {

struct GroupedWeights {
  bool one_launch = true;
  bool swapped = false;            // group 0 of the launch is the caller's output 1
  std::int64_t group_stride = 0;   // elements between the two weights (one matrix for a single group)
};

GroupedWeights group_weights(const ProjectionLaunch& launch);

}  // namespace vlb::fused_b200
