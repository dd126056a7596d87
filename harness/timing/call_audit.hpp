#pragma once
// REWARD_HACK checks on the CUPTI records of every timed call:
// - GPU work of the call that ran outside the CUDA-events window: a record that ended after the host saw the stop
//   event complete (work left running on a stream the call did not join back), or a CUPTI span longer than the events
//   span (work that started before the start event, e.g. on another stream while the L2 flush ran);
// - a call whose set of launched kernels (and memcpy/memset) differs from the first timed call's (work skipped or
//   replaced after the first calls, such as caching results).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/timing/cupti_span.hpp"

namespace vlb {

// Slack for comparing two clocks (CUPTI's record timestamps and the host's view of the stop event) and two timers.
inline constexpr double kOutsideWindowSlackMs = 0.005;
inline constexpr double kSpanOverEventsRelativeSlack = 0.02;

struct AuditedCall {
  int iteration = 0;
  double event_ms = 0;
  std::uint64_t stop_observed_ns = 0;  // CUPTI clock, read as soon as the host saw the stop event complete
  CallActivity activity;
};

class CallAudit {
 public:
  void add(const AuditedCall& call);
  std::vector<std::string> violations() const;

 private:
  struct Finding {
    int count = 0;
    std::string first_example;
  };
  int calls_ = 0;
  std::optional<std::set<std::string>> first_names_;
  int first_iteration_ = 0;
  Finding outside_window_;
  Finding changed_names_;
};

}  // namespace vlb
