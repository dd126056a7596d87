#include "solutions/fused_b200/kernel_architecture.hpp"

#include <string>
#include <utility>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"

namespace vlb::fused_b200 {
namespace {

int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  VLB_CUDA_CHECK(cudaGetDevice(&device));
  int value = 0;
  VLB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

std::pair<int, int> current_compute_capability() {
  return {current_device_attribute(cudaDevAttrComputeCapabilityMajor),
          current_device_attribute(cudaDevAttrComputeCapabilityMinor)};
}

std::string built_architectures() {
  std::string built;
#if defined(VLBENCH_HAS_SM90)
  built += "sm_90a (compute capability 9.0)";
#endif
#if defined(VLBENCH_HAS_SM100)
  built += std::string(built.empty() ? "" : " and ") + "sm_100a (compute capability 10.0)";
#endif
  return built.empty() ? std::string("no architecture") : built;
}

}  // namespace

int current_sm_count() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

KernelArchitecture kernel_architecture_for(int major, int minor) {
#if defined(VLBENCH_HAS_SM90)
  if (major == 9 && minor == 0) return KernelArchitecture::kSm90;
#endif
#if defined(VLBENCH_HAS_SM100)
  if (major == 10 && minor == 0) return KernelArchitecture::kSm100;
#endif
  (void)major, (void)minor;
  return KernelArchitecture::kNone;
}

KernelArchitecture current_kernel_architecture() {
  const auto [major, minor] = current_compute_capability();
  return kernel_architecture_for(major, minor);
}

void throw_no_kernel(const char* stage) {
  const auto [major, minor] = current_compute_capability();
  throw SystemError(std::string("fused_b200 ") + stage + ": no kernel for compute capability " +
                    std::to_string(major) + "." + std::to_string(minor) + " in this build (kernels exist for " +
                    built_architectures() + "; configure with VLBENCH_GPU_TARGETS including 90a or 100a and run on "
                    "a Hopper H100/H200 or a Blackwell B200)");
}

}  // namespace vlb::fused_b200
