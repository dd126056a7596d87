#pragma once
// Which of the fused solution's per-architecture kernel sets the current device runs, given what this build holds
// (*_sm90.cu files are built only when VLBENCH_GPU_TARGETS has 90a, *_sm100.cu only with 100a).
namespace vlb::fused_b200 {

enum class KernelArchitecture { kNone, kSm90 };

// The kernels for the current CUDA device, or kNone when this build has none for its compute capability.
KernelArchitecture current_kernel_architecture();

// The current CUDA device's SM count (what the persistent grids are sized for).
int current_sm_count();

// SystemError naming the stage, the device's compute capability and the architectures this build has kernels for.
[[noreturn]] void throw_no_kernel(const char* stage);

}  // namespace vlb::fused_b200
