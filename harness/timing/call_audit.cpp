#include "harness/timing/call_audit.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace vlb {
namespace {

constexpr std::size_t kMaxNameChars = 120;

std::string short_name(const std::string& name) {
  return name.size() <= kMaxNameChars ? name : name.substr(0, kMaxNameChars) + "...";
}

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "'" : ", '") + short_name(name) + "'";
  return joined.empty() ? "none" : joined;
}

std::vector<std::string> difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> only_in_a;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_in_a));
  return only_in_a;
}

// Why the call's work lies outside its events window, or nothing when it lies inside.
std::optional<std::string> outside_window_reason(const AuditedCall& call) {
  const CallActivity& activity = call.activity;
  if (activity.record_count == 0) return std::nullopt;
  const double end_after_stop_ms =
      (static_cast<double>(activity.last_end_ns) - static_cast<double>(call.stop_observed_ns)) * 1e-6;
  if (end_after_stop_ms > kOutsideWindowSlackMs) {
    return fmt::format("iteration {}: '{}' ended {:.4f} ms after the host saw the stop event complete", call.iteration,
                       short_name(activity.last_ending_name), end_after_stop_ms);
  }
  const double span_ms = activity.span_ms();
  if (span_ms > call.event_ms * (1.0 + kSpanOverEventsRelativeSlack) + kOutsideWindowSlackMs) {
    return fmt::format("iteration {}: CUPTI span {:.4f} ms is longer than the events window {:.4f} ms", call.iteration,
                       span_ms, call.event_ms);
  }
  return std::nullopt;
}

}  // namespace

void CallAudit::add(const AuditedCall& call) {
  ++calls_;
  if (const auto reason = outside_window_reason(call)) {
    if (outside_window_.count++ == 0) outside_window_.first_example = *reason;
  }
  if (!first_names_) {
    first_names_ = call.activity.names;
    first_iteration_ = call.iteration;
    return;
  }
  if (call.activity.names != *first_names_) {
    if (changed_names_.count++ == 0) {
      changed_names_.first_example =
          fmt::format("iteration {} launched {} not launched by iteration {}, and not {}", call.iteration,
                      join_names(difference(call.activity.names, *first_names_)), first_iteration_,
                      join_names(difference(*first_names_, call.activity.names)));
    }
  }
}

std::vector<std::string> CallAudit::violations() const {
  std::vector<std::string> found;
  if (outside_window_.count > 0) {
    found.push_back(fmt::format(
        "REWARD_HACK: GPU work of the call ran outside its CUDA-events window in {} of {} timed calls (first: {}); "
        "work on another stream must be joined back to the harness stream before the call returns",
        outside_window_.count, calls_, outside_window_.first_example));
  }
  if (changed_names_.count > 0) {
    found.push_back(fmt::format(
        "REWARD_HACK: the set of kernels launched by the call changed in {} of {} timed calls (first: {}); every "
        "call must do the whole computation",
        changed_names_.count, calls_, changed_names_.first_example));
  }
  return found;
}

}  // namespace vlb
