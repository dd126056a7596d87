// Turns command-line selectors (an index, a uuid or uuid prefix, or a custom size "BxLqxLv") into the cases to run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

#include "harness/core/errors.hpp"
#include "harness/suite/suite.hpp"
#include "harness/suite/suite_axes.hpp"

namespace vlb {

namespace {

constexpr std::size_t kMinUuidPrefix = 8;
constexpr std::size_t kLabelUuidChars = 8;

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool is_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string valid_indices(const Suite& suite) {
  if (suite.workloads.empty()) return "the suite is empty";
  return fmt::format("valid indices 0..{}", suite.workloads.size() - 1);
}

// A long all-digit selector may be a uuid prefix rather than an index.
bool any_uuid_starts_with(const Suite& suite, std::string_view prefix) {
  for (const Workload& workload : suite.workloads) {
    if (workload.uuid.starts_with(prefix)) return true;
  }
  return false;
}

Case suite_case(const Suite& suite, std::size_t index) {
  const Workload& workload = suite.workloads[index];
  Case result;
  result.index = static_cast<int>(index);
  result.uuid = workload.uuid;
  result.shape = workload.shape;
  result.tolerance = workload.tolerance;
  result.workload = &workload;
  return result;
}

Case custom_case(std::string_view selector, double custom_atol) {
  std::vector<std::int64_t> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t separator = selector.find('x', start);
    const std::string_view part =
        selector.substr(start, separator == std::string_view::npos ? separator : separator - start);
    const auto value = parse_integer(part);
    if (!value) {
      throw UsageError(fmt::format("custom size '{}': write BxLqxLv with three integers, e.g. 2x373x588", selector));
    }
    values.push_back(*value);
    if (separator == std::string_view::npos) break;
    start = separator + 1;
  }
  if (values.size() != 3) {
    throw UsageError(fmt::format("custom size '{}' has {} numbers; write exactly BxLqxLv, e.g. 2x373x588", selector,
                                 values.size()));
  }
  Case result;
  result.shape = ProblemShape{values[0], values[1], values[2]};
  if (auto violation = suite_detail::shape_limit_violation(result.shape)) {
    throw UsageError(fmt::format("custom size '{}': {}", selector, *violation));
  }
  result.tolerance.atol = custom_atol;
  return result;
}

Case indexed_case(const Suite& suite, std::string_view selector) {
  const auto index = parse_integer(selector);
  if (!index || *index < 0 || *index >= static_cast<std::int64_t>(suite.workloads.size())) {
    throw UsageError(fmt::format("case index {} is out of range: suite '{}' has {} workloads ({}); a size outside the "
                                 "suite is --shape BxLqxLv",
                                 selector, suite.name, suite.workloads.size(), valid_indices(suite)));
  }
  return suite_case(suite, static_cast<std::size_t>(*index));
}

Case uuid_case(const Suite& suite, std::string_view selector) {
  for (std::size_t i = 0; i < suite.workloads.size(); ++i) {
    if (suite.workloads[i].uuid == selector) return suite_case(suite, i);
  }
  if (selector.size() < kMinUuidPrefix) {
    throw UsageError(
        fmt::format("'{}' selects no case: give an index ({}), a uuid or a uuid prefix of at least {} "
                    "characters, or --shape BxLqxLv for a custom size",
                    selector, valid_indices(suite), kMinUuidPrefix));
  }
  std::vector<std::size_t> matches;
  for (std::size_t i = 0; i < suite.workloads.size(); ++i) {
    if (suite.workloads[i].uuid.starts_with(selector)) matches.push_back(i);
  }
  if (matches.empty()) {
    throw UsageError(
        fmt::format("no workload of suite '{}' has a uuid starting with '{}' (list them with the "
                    "suite's workload file {})",
                    suite.name, selector, suite.workloads_path.string()));
  }
  if (matches.size() > 1) {
    std::vector<std::string> uuids;
    for (std::size_t i : matches) uuids.push_back(fmt::format("#{} {}", i, suite.workloads[i].uuid));
    throw UsageError(fmt::format("uuid prefix '{}' is ambiguous: it matches {}; give more characters", selector,
                                 fmt::join(uuids, ", ")));
  }
  return suite_case(suite, matches.front());
}

bool same_case(const Case& a, const Case& b) {
  if (a.workload != nullptr || b.workload != nullptr) return a.workload == b.workload;
  return a.shape == b.shape;
}

// A case selected twice would run twice and count twice in every summary.
void refuse_repeat(const std::vector<Case>& cases, const std::vector<std::string>& selected_by,
                   const std::string& selector) {
  for (std::size_t i = 0; i + 1 < cases.size(); ++i) {
    if (!same_case(cases[i], cases.back())) continue;
    throw UsageError(fmt::format("'{}' and '{}' both select {}: give each case once", selected_by[i], selector,
                                 cases.back().label()));
  }
}

}  // namespace

std::string Case::label() const {
  if (workload == nullptr) return "custom " + describe(shape);
  return fmt::format("#{} {}", index, uuid.substr(0, kLabelUuidChars));
}

bool is_custom_size(std::string_view selector) {
  return selector.find('x') != std::string_view::npos &&
         selector.find_first_not_of("0123456789x") == std::string_view::npos;
}

std::vector<Case> select_cases(const Suite& suite, const std::vector<std::string>& selectors, double custom_atol) {
  if (!(std::isfinite(custom_atol) && custom_atol >= 0.0)) {
    throw UsageError(fmt::format("the tolerance for custom cases must be a finite atol >= 0, got {}", custom_atol));
  }
  std::vector<Case> cases;
  if (selectors.empty()) {
    for (std::size_t i = 0; i < suite.workloads.size(); ++i) cases.push_back(suite_case(suite, i));
    return cases;
  }
  std::vector<std::string> selected_by;  // the selector of each case, for the message about a repeat
  for (const std::string& selector : selectors) {
    if (selector.empty()) {
      throw UsageError(fmt::format("empty case selector: give an index ({}), a uuid (prefix) or a size BxLqxLv",
                                   suite.workloads.empty() ? std::string("none") : valid_indices(suite)));
    }
    if (selector.find(',') != std::string::npos) {
      throw UsageError(fmt::format("'{}' is several selectors in one: -c takes indices and uuid prefixes separated by "
                                   "commas (-c 0,15), and a custom size is --shape BxLqxLv (--shape 2x373x588)",
                                   selector));
    }
    if (is_custom_size(selector)) {
      cases.push_back(custom_case(selector, custom_atol));
    } else if (is_digits(selector) && !(selector.size() >= kMinUuidPrefix && any_uuid_starts_with(suite, selector))) {
      cases.push_back(indexed_case(suite, selector));
    } else {
      cases.push_back(uuid_case(suite, selector));
    }
    refuse_repeat(cases, selected_by, selector);
    selected_by.push_back(selector);
  }
  return cases;
}

}  // namespace vlb
