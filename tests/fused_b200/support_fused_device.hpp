#pragma once
// Which fused_b200 kernels the GPU tests can run on the test device (GPU tests only: it asks the device).
#include <catch2/catch.hpp>

#include <string>

#include "solutions/fused_b200/kernel_architecture.hpp"
#include "support/gpu_test.hpp"
#include "support/skip.hpp"

namespace vlb::fused_b200::testing {

inline KernelArchitecture test_device_kernels() {
  const DeviceInfo& device = vlb::testing::test_device();
  return kernel_architecture_for(device.compute_major, device.compute_minor);
}

// True, with the test case marked skipped (support/skip.hpp: never a pass), when this build has no fused_b200
// kernels for the test device: Hopper (9.0) and Blackwell B200 (10.0) have them when VLBENCH_GPU_TARGETS holds 90a /
// 100a. The caller returns.
inline bool skip_without_fused_kernels(const char* what) {
  if (test_device_kernels() != KernelArchitecture::kNone) return false;
  vlb::testing::mark_skipped(std::string(what) +
                             ": this build has no fused_b200 kernels for this GPU (sm_90a and sm_100a only)");
  return true;
}

// True, with the test case marked skipped, unless the test device runs the sm90 kernels: for tests of sm90-only plans.
inline bool skip_unless_hopper_kernels(const char* what) {
  if (test_device_kernels() == KernelArchitecture::kSm90) return false;
  vlb::testing::mark_skipped(std::string(what) + " exercises sm90 plans, and this GPU does not run them");
  return true;
}

}  // namespace vlb::fused_b200::testing
