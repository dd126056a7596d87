// fused_b200's whole operation behind a C interface, so that a bench outside C++ (parts_bench.py, through ctypes) can
// time it in the same process as the library parts it is compared with. The eleven inputs come as device pointers
// in the definition's order; everything is enqueued on the caller's stream, as the registered solution does.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <vlbench_git.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>

#include "harness/core/cuda_check.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/worker/solution_call.hpp"
#include "solutions/fused_b200/fused_operation.hpp"
#include "solutions/fused_b200/kernel_architecture.hpp"

namespace {

const vlb::fused_b200::FusedOperation& operation() {
  static const vlb::fused_b200::FusedOperation instance(vlb::fused_b200::current_sm_count());
  return instance;
}

vlb::ProblemShape shape_of(long long batch, long long lang_seq, long long vision_seq) {
  return vlb::ProblemShape{batch, lang_seq, vision_seq};
}

// 0, or 1 with the reason in `error` (cut to error_bytes).
template <class Body>
int reporting(char* error, std::size_t error_bytes, Body&& body) {
  try {
    body();
    return 0;
  } catch (const std::exception& failure) {
    if (error != nullptr && error_bytes > 0) {
      std::strncpy(error, failure.what(), error_bytes - 1);
      error[error_bytes - 1] = '\0';
    }
    return 1;
  }
}

}  // namespace

extern "C" {

// The commit this library was built from, and whether the tree had changes ("<sha>" or "<sha>-dirty").
__attribute__((visibility("default"))) const char* vlb_fused_b200_build() {
  static const std::string build = fmt::format("{}{}", VLBENCH_GIT_COMMIT, VLBENCH_GIT_DIRTY ? "-dirty" : "");
  return build.c_str();
}

__attribute__((visibility("default"))) int vlb_fused_b200_workspace_bytes(long long batch, long long lang_seq,
                                                                         long long vision_seq, std::size_t* bytes,
                                                                         char* error, std::size_t error_bytes) {
  return reporting(error, error_bytes,
                   [&] { *bytes = operation().workspace_bytes(shape_of(batch, lang_seq, vision_seq)); });
}

// Enqueues the operation on `stream`; `inputs` holds the eleven input pointers in the definition's order.
__attribute__((visibility("default"))) int vlb_fused_b200_run(long long batch, long long lang_seq,
                                                             long long vision_seq, const void* const* inputs,
                                                             void* output, void* workspace,
                                                             std::size_t workspace_bytes, void* stream, char* error,
                                                             std::size_t error_bytes) {
  return reporting(error, error_bytes, [&] {
    const vlb::ProblemShape shape = shape_of(batch, lang_seq, vision_seq);
    std::array<const void*, vlb::kNumInputs> pointers{};
    for (int i = 0; i < vlb::kNumInputs; ++i) pointers[i] = inputs[i];
    operation().run(vlb::make_fusion_args(shape, vlb::make_fusion_inputs(shape, pointers),
                                          static_cast<vlb::bf16*>(output), workspace, workspace_bytes,
                                          static_cast<cudaStream_t>(stream)));
    VLB_CUDA_CHECK(cudaGetLastError());
  });
}

}  // extern "C"
