#pragma once
// Which of the fused solution's per-architecture kernel sets the current device runs, given what this build holds
// (*_sm90.cu files are built only when VLBENCH_GPU_TARGETS has 90a, *_sm100.cu only with 100a).
namespace vlb::fused_b200 {

// kSm90: Hopper, compute capability 9.0 (sm_90a code). kSm100: Blackwell B200, compute capability 10.0 (sm_100a
// code, which loads on 10.0 only: other 10.x parts such as B300 would need sm_103a or family code).
enum class KernelArchitecture { kNone, kSm90, kSm100 };

// The kernels for (major, minor), or kNone when this build has none for it. Pure: no device is queried.
KernelArchitecture kernel_architecture_for(int major, int minor);

// The kernels for the current CUDA device.
KernelArchitecture current_kernel_architecture();

// The current CUDA device's SM count (what the persistent grids are sized for).
int current_sm_count();

// SystemError naming the stage, the device's compute capability and the architectures this build has kernels for.
[[noreturn]] void throw_no_kernel(const char* stage);

}  // namespace vlb::fused_b200
