#pragma once
// What surrounds every call of a solution, outside any timed window. Before it: the call's own inputs written to its
// own placement, the output poisoned with NaN, the workspace scrambled with random bytes, the guard zones armed and
// the inputs fingerprinted. After it: the guard zones and the fingerprints checked.
#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/check/guards.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/judge/call_placements.hpp"
#include "harness/judge/call_schedule.hpp"
#include "harness/solution/solution.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

class CallProtocol {
 public:
  // Allocates the placements for every call of `schedule` and reads the case's file inputs.
  CallProtocol(const Case& test_case, const CallSchedule& schedule, std::size_t workspace_bytes, cudaStream_t stream);
  static std::size_t bytes_needed(const ProblemShape& shape, std::size_t workspace_bytes, const CallSchedule& schedule);

  // Prepares call `call` on `stream` (and waits for it: the fingerprints are read back) and returns its arguments.
  FusionArgs prepare(int call, cudaStream_t stream);
  // After call `call` has completed: why it broke the rules (guard zones, modified inputs), or nullopt.
  std::optional<std::string> inspect(int call, cudaStream_t stream) const;
  // The output of call `call`, copied to the host (valid until a later call reuses its placement's bytes).
  std::vector<std::byte> copy_output(int call, cudaStream_t stream) const;
  const void* output(int call) const { return placements_.output(call); }
  std::size_t output_bytes() const;

 private:
  std::uint64_t call_key(int call) const;

  const CallSchedule& schedule_;
  ProblemShape shape_;
  CaseInputSource source_;
  CallPlacements placements_;
  InputFingerprints before_{};
};

}  // namespace vlb
