#pragma once
// How a worker turns the judge's load message into a solution: vlbench-worker opens a solution module (its
// shared library); the Python worker (worker/python/) wraps a Python package's entry point. Both then run under the
// same session (worker_session.hpp): the same buffers, handshake, timer and sandbox.
#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "harness/isolation/worker_protocol.hpp"
#include "harness/solution/solution_module.hpp"

namespace vlb {

struct OpenedSolution {  // members in this order: the solution goes before what its code lives in
  std::shared_ptr<void> keeps_loaded;  // what the solution's code lives in (its module)
  SolutionPtr solution{nullptr, [](Solution*) {}};
  // Work on a call's arguments that belongs to no timed region (a Python solution builds its tensors here), run
  // before the call's go; may be empty.
  std::function<void(const FusionArgs&)> prepare_call;
};

// Opens the solution `load` names on the worker's `stream`; throws SolutionFault for what the solution's own code
// threw, Error for what keeps the worker from opening it.
using SolutionOpener = std::function<OpenedSolution(const protocol::LoadMessage& load, cudaStream_t stream)>;

// vlbench-worker's opener: the solution module at load.module, the solution load.solution in it.
OpenedSolution open_module_solution(const protocol::LoadMessage& load, cudaStream_t stream);

}  // namespace vlb
