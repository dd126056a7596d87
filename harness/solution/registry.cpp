#include "harness/solution/registry.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "harness/core/errors.hpp"

namespace vlb {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) joined += (i == 0 ? "" : separator) + items[i];
  return joined;
}

}  // namespace

std::optional<std::string> Solution::unsupported_reason(const DeviceInfo& device, const ProblemShape&) const {
  const SolutionInfo& meta = info();
  const auto& targets = meta.target_compute_capabilities;
  if (targets.empty() || std::find(targets.begin(), targets.end(), device.compute_capability()) != targets.end()) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (int cc : targets) names.push_back("sm_" + std::to_string(cc));
  return "solution '" + meta.name + "' targets " + join(names, ", ") + " and this GPU (" + device.name + ") is sm_" +
         std::to_string(device.compute_capability());
}

SolutionRegistry& SolutionRegistry::instance() {
  static SolutionRegistry registry;
  return registry;
}

void SolutionRegistry::add(SolutionInfo meta, Factory factory) {
  if (meta.name.empty()) return add_registration_error("a registered solution has an empty name");
  if (contains(meta.name)) return add_registration_error("solution '" + meta.name + "' is registered twice");
  entries_.push_back({std::move(meta), std::move(factory)});
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.info.name < b.info.name; });
}

void SolutionRegistry::add_registration_error(std::string message) {
  registration_errors_.push_back(std::move(message));
}

void SolutionRegistry::require_clean_registration() const {
  if (registration_errors_.empty()) return;
  throw UsageError("solutions could not be registered (a build mistake: fix the solution's describe() or its "
                   "VLBENCH_REGISTER_SOLUTION line): " + join(registration_errors_, "; "));
}

bool SolutionRegistry::contains(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.info.name == name; });
}

void SolutionRegistry::require(const std::string& name) const {
  if (!contains(name)) {
    throw UsageError("unknown solution '" + name + "'; registered solutions: " + join(names(), ", ") +
                     " (see vlbench --list)");
  }
}

std::unique_ptr<Solution> SolutionRegistry::create(const std::string& name) const {
  require(name);
  const auto entry = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.info.name == name; });
  std::unique_ptr<Solution> solution = entry->factory();
  solution->info_ = entry->info;
  return solution;
}

std::vector<SolutionInfo> SolutionRegistry::list() const {
  std::vector<SolutionInfo> infos;
  for (const Entry& entry : entries_) infos.push_back(entry.info);
  return infos;
}

std::vector<std::string> SolutionRegistry::names() const {
  std::vector<std::string> result;
  for (const Entry& entry : entries_) result.push_back(entry.info.name);
  return result;
}

namespace detail {

SolutionRegistration::SolutionRegistration(const char* type_name, SolutionInfo (*describe)(),
                                           SolutionRegistry::Factory factory) noexcept {
  try {
    try {
      SolutionRegistry::instance().add(describe(), std::move(factory));
    } catch (const std::exception& error) {
      SolutionRegistry::instance().add_registration_error(std::string(type_name) + "::describe() threw: " + error.what());
    } catch (...) {
      SolutionRegistry::instance().add_registration_error(std::string(type_name) +
                                                          "::describe() threw something that is not a std::exception");
    }
  } catch (...) {
    // Out of memory while recording the error: nothing more can be said before main.
  }
}

}  // namespace detail

}  // namespace vlb
