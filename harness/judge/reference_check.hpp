#pragma once
// The judgement of one call against the reference, in the judge's process only (the reference output never exists
// where solution code runs): the reference is computed from the call's own inputs, generated from its seed into
// memory of the judge's that the worker never sees (so it can be computed before the call, while the worker is idle,
// without the call's inputs being visible to the worker any earlier), the solution's output is copied aside the moment
// its call is reported done (the snapshot), and the two are compared by the leaderboard's rule.
#include <cuda_runtime.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "harness/core/device_buffer.hpp"
#include "harness/inputs/generator.hpp"
#include "harness/inputs/input_set.hpp"
#include "harness/inputs/workload_inputs.hpp"
#include "harness/report/results.hpp"
#include "harness/solution/solution.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

class ReferenceCheck {
 public:
  ReferenceCheck(const Case& test_case, cudaStream_t stream);
  ~ReferenceCheck();
  ReferenceCheck(const ReferenceCheck&) = delete;
  ReferenceCheck& operator=(const ReferenceCheck&) = delete;
  // Device memory it holds for a case of `shape` (the memory check counts it).
  static std::size_t bytes_needed(const ProblemShape& shape);

  // The reference output for the inputs of `settings` (generated here, as the call's are), then waits.
  void compute(const InputSettings& settings);
  // Copies `bytes` of the solution's output aside, on the judge's stream, and waits.
  void take_snapshot(const void* output, std::size_t bytes);
  // The snapshot against the reference: stats, status and reason, the call's seed and positions filled in.
  CorrectnessRound judge(const InputSettings& settings, std::optional<double> max_abs_error_cap) const;
  // A safetensors dump of the call's inputs, the snapshot and the reference (--dump).
  void dump(const std::filesystem::path& folder, const std::string& solution, const CorrectnessRound& round) const;

 private:
  std::string non_finite_reference() const;

  const Case& test_case_;
  cudaStream_t stream_;
  CaseInputSource source_;
  DeviceInputs inputs_;
  std::unique_ptr<Solution> reference_;
  DeviceBuffer snapshot_;
  DeviceBuffer reference_output_;
  DeviceBuffer reference_workspace_;
};

}  // namespace vlb
