#include "solutions/fused_b200/kernel_architecture.hpp"

#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/core/errors.hpp"

namespace vlb::fused_b200 {
namespace {

int current_compute_major() {
  int device = 0;
  VLB_CUDA_CHECK(cudaGetDevice(&device));
  int major = 0;
  VLB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major;
}

}  // namespace

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
