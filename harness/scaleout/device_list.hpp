#pragma once
// Which GPUs a --devices run uses: `all` of this host's, or a list of ordinals (as CUDA numbers them, after
// CUDA_VISIBLE_DEVICES).
#include <string_view>
#include <vector>

#include "harness/plan/run_plan.hpp"

namespace vlb {

// "all", or comma-separated distinct ordinals ("0,2,3"). Throws UsageError saying what is wrong. Needs no GPU.
DeviceList parse_device_list(std::string_view text);

// The ordinals to use, given how many GPUs CUDA reports. Throws SystemError when there is none, UsageError for an
// ordinal this host does not have.
std::vector<int> resolve_devices(const DeviceList& list, int available);

}  // namespace vlb
