#pragma once
// What the judge does around every call of a solution, in its own process and outside any timed window. Before it:
// the call's own inputs written to its own placement, the output poisoned with NaN, the workspace scrambled with
// random bytes, the guard zones armed with a pattern keyed by fresh entropy, the inputs fingerprinted. After it: the
// guard zones and the fingerprints checked, by the judge, on the memory it owns.
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "harness/check/guards.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/judge/call_placements.hpp"
#include "harness/solution/solution.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

class CallPreparation {
 public:
  // Reads the case's file inputs (uploaded once; their values are the same in every call).
  CallPreparation(const Case& test_case, const CallPlacements& placements, cudaStream_t stream);

  // Prepares call `call` for `settings` on the judge's stream, and waits for it.
  void prepare(int call, const InputSettings& settings);
  // After call `call` has completed: why it broke the rules (guard zones, modified inputs), or nullopt.
  std::optional<std::string> inspect(int call) const;
  // The call's arguments in this process's address space, on `stream`.
  FusionArgs arguments(int call, cudaStream_t stream) const;

 private:
  const CallPlacements& placements_;
  ProblemShape shape_;
  cudaStream_t stream_;
  CaseInputSource source_;
  InputFingerprints before_{};
  std::uint64_t guard_key_ = 0;
};

}  // namespace vlb
