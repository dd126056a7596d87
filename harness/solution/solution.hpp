#pragma once
// The solution boundary: the only harness header a contributor's code needs.
//
// Destination-passing style, as SOL-ExecBench: the inputs in the definition's order, the output last, a CUDA stream, and a
// workspace the solution sized itself through workspace_bytes(), so that all allocation happens before timing.
// A solution must enqueue all its work on `stream` (or join its own streams back into it before returning),
// must not modify its inputs, must not write outside its output and workspace, must not allocate device memory in
// run(), and must not cache results. Every call (warm-up and timed calls included) sees input values and addresses
// no earlier call saw, an output filled with NaN, and a workspace filled with random bytes: nothing a call leaves
// behind is there for the next. Anything a solution throws, from any of its functions, fails that case only.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/device_info.hpp"
#include "harness/core/problem.hpp"

namespace vlb {

using bf16 = __nv_bfloat16;

// A device tensor: pointer plus extents (row-major, contiguous).
template <class T, int Rank>
struct TensorRef {
  T* data = nullptr;
  std::array<std::int64_t, Rank> shape{};
};

struct FusionInputs {
  TensorRef<const bf16, 3> language_hidden_states;     // [B, Lq, 4096]
  TensorRef<const bf16, 3> vision_hidden_states;       // [B, Lv, 4096]
  TensorRef<const std::int64_t, 2> language_position_ids;  // [B, Lq]
  TensorRef<const std::int64_t, 3> vision_grid_thw;    // [B, Lv, 3] (t, h, w)
  TensorRef<const bf16, 2> q_proj_weight;              // [4096, 4096] (out, in)
  TensorRef<const bf16, 1> q_proj_bias;                // [4096]
  TensorRef<const bf16, 2> k_proj_weight;              // [1024, 4096]
  TensorRef<const bf16, 1> k_proj_bias;                // [1024]
  TensorRef<const bf16, 2> v_proj_weight;              // [1024, 4096]
  TensorRef<const bf16, 1> v_proj_bias;                // [1024]
  TensorRef<const bf16, 2> o_proj_weight;              // [4096, 4096]
};

struct FusionArgs {
  ProblemShape shape;
  FusionInputs inputs;
  TensorRef<bf16, 3> output;      // [B, Lq, 4096]
  void* workspace = nullptr;      // workspace_bytes(shape) bytes, 256-byte aligned, random bytes on entry
  std::size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

struct SolutionInfo {
  std::string name;          // what --solution takes
  std::string author;
  std::string description;   // one line for --list
  std::vector<std::string> languages = {"cuda"};
  // Compute capabilities as major*10+minor (90 = Hopper sm_90a, 100 = Blackwell sm_100a); empty = any GPU.
  std::vector<int> target_compute_capabilities;
};

// A solution type also provides `static SolutionInfo describe();`, which the registry reads without constructing it
// (so that --list needs no GPU); constructors may acquire CUDA resources (handles, streams).
class Solution {
 public:
  virtual ~Solution() = default;
  // The registry's description of this solution (empty for an instance not created through the registry).
  const SolutionInfo& info() const { return info_; }
  virtual std::size_t workspace_bytes(const ProblemShape& shape) const = 0;
  // Why this solution cannot run here (the case is SKIPPED with that reason), or nullopt when it can.
  // The default checks target_compute_capabilities against the device.
  virtual std::optional<std::string> unsupported_reason(const DeviceInfo& device, const ProblemShape& shape) const;
  virtual void run(const FusionArgs& args) = 0;

 private:
  friend class SolutionRegistry;
  SolutionInfo info_;
};

}  // namespace vlb
