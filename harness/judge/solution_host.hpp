#pragma once
// Who runs a solution's calls for the judge: a sandboxed worker process (worker_host.hpp, the default), or this
// process itself (local_host.hpp, --no-isolation: trusted, for debugging one's own code). Either way the judge owns
// the memory, prepares every call, reads the output itself and keeps its own clock; the host only runs the call
// between go and done and says what its timers saw.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/check/status.hpp"
#include "harness/isolation/worker_protocol.hpp"
#include "harness/plan/solution_catalog.hpp"
#include "harness/judge/call_placements.hpp"
#include "harness/timing/cupti_span.hpp"

namespace vlb {

// What became of one call.
struct HostCall {
  double event_ms = 0;                // the host's CUDA events (the worker's claim, when isolated)
  std::uint64_t stop_observed_ns = 0;
  double outside_ms = 0;              // the judge's clock: go -> its own read of the output done
  std::optional<std::string> failure; // the solution threw, or a CUDA error came back
};

struct HostLoad {
  std::optional<std::string> unsupported_reason;
  std::size_t workspace_bytes = 0;
};

// The case cannot go on with this host. `status`: RUNTIME_ERROR (a fault, a refused system call, a dead worker),
// TIMEOUT (past the case's limit) or REWARD_HACK (a worker that broke the protocol: vlbench's own code does not).
class HostFailure : public std::runtime_error {
 public:
  HostFailure(CaseStatus status, const std::string& reason) : std::runtime_error(reason), status_(status) {}
  CaseStatus status() const { return status_; }

 private:
  CaseStatus status_;
};

class SolutionHost {
 public:
  virtual ~SolutionHost() = default;
  virtual bool isolated() const = 0;
  virtual bool cupti_available() const = 0;
  // Makes the placements' allocations from index `first` on reachable by the solution.
  virtual void share(const CallPlacements& placements, std::size_t first) = 0;
  // Loads the solution (its module, its constructor), then asks unsupported_reason and workspace_bytes.
  virtual HostLoad load(const CatalogEntry& entry, const ProblemShape& shape) = 0;
  // Runs call `call` (numbered from 1) of `kind` on placement `placement`; `on_done` is the judge's own read of the
  // output, run the moment the call is reported done, inside the outside clock.
  virtual HostCall call(std::uint64_t call, protocol::CallKind kind, const CallPlacements& placements, int placement,
                        const std::function<void()>& on_done) = 0;
  // The CUPTI activity of traced calls (timed and calibration calls), in the order asked.
  virtual std::vector<CallActivity> activities(const std::vector<std::uint64_t>& calls) = 0;
  // Ends the session (the worker exits); no call after.
  virtual void finish() = 0;
};

}  // namespace vlb
