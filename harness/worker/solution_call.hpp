#pragma once
// Calling into solution code: every call (constructor, unsupported_reason, workspace_bytes, run) is guarded, so
// whatever it throws becomes that case's RUNTIME_ERROR, in a worker process or in this one (--no-isolation).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <exception>
#include <stdexcept>
#include <string_view>

#include "harness/solution/solution.hpp"

namespace vlb {

// What solution code threw, with the entry point named: the case is RUNTIME_ERROR with this message as its reason.
class SolutionFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `body`, a call into solution code named `what` ("constructor", "run", ...); rethrows anything as SolutionFault.
template <class Body>
decltype(auto) guard_solution_call(std::string_view what, Body&& body) {
  try {
    return body();
  } catch (const SolutionFault&) {
    throw;
  } catch (const std::exception& error) {
    throw SolutionFault(fmt::format("the solution's {} threw: {}", what, error.what()));
  } catch (...) {
    throw SolutionFault(fmt::format("the solution's {} threw something that is not a std::exception", what));
  }
}

// The arguments of one call: `workspace` of `workspace_bytes` bytes (nullptr when none).
FusionArgs make_fusion_args(const ProblemShape& shape, const FusionInputs& inputs, bf16* output, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace vlb
