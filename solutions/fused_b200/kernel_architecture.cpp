#include "solutions/fused_b200/kernel_architecture.hpp"

#include <string>

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

int current_compute_major() { return current_device_attribute(cudaDevAttrComputeCapabilityMajor); }

}  // namespace

int current_sm_count() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

KernelArchitecture current_kernel_architecture() {
  const int major = current_compute_major();
#if defined(VLBENCH_HAS_SM90)
  if (major == 9) return KernelArchitecture::kSm90;
#endif
  (void)major;
  return KernelArchitecture::kNone;
}

void throw_no_kernel(const char* stage) {
  throw SystemError(std::string("fused_b200 ") + stage + ": no kernel for compute capability " +
                    std::to_string(current_compute_major()) +
                    ".x in this build (kernels exist for sm_90a only; configure with VLBENCH_GPU_TARGETS including "
                    "90a and run on a Hopper GPU)");
}

}  // namespace vlb::fused_b200
