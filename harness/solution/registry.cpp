#include "harness/solution/registry.hpp"

#include <algorithm>
#include <filesystem>
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

// "solutions/template/template_solution.cu" -> "solutions/template/": the folder, relative to the source tree when it
// lies inside (VLBENCH_SOURCE_WORKLOADS_DIR is <source tree>/workloads; a `vlbench package` build has none).
std::string folder_of(const std::string& source_file) {
  if (source_file.empty()) return "an unknown folder";
  std::filesystem::path folder = std::filesystem::path(source_file).parent_path();
#ifdef VLBENCH_SOURCE_WORKLOADS_DIR
  const std::filesystem::path root = std::filesystem::path(VLBENCH_SOURCE_WORKLOADS_DIR).parent_path();
  const std::filesystem::path relative = folder.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") folder = relative;
#endif
  return folder.generic_string() + "/";
}

}  // namespace

std::string registration_folder(const std::string& source_file) { return folder_of(source_file); }

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

void SolutionRegistry::add(SolutionInfo meta, Factory factory, std::string source_file) {
  if (meta.name.empty()) {
    return add_registration_error("a solution registered in " + folder_of(source_file) + " has an empty name");
  }
  const auto existing = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.info.name == meta.name; });
  if (existing != entries_.end()) {
    return add_registration_error("solution '" + meta.name + "' is registered twice: in " +
                                  folder_of(existing->source_file) + " (" + existing->source_file + ") and in " +
                                  folder_of(source_file) + " (" + source_file + "); give each solution its own name");
  }
  entries_.push_back({std::move(meta), std::move(factory), std::move(source_file)});
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

std::string SolutionRegistry::source_file(const std::string& name) const {
  const auto entry = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.info.name == name; });
  return entry == entries_.end() ? std::string() : entry->source_file;
}

std::vector<std::string> SolutionRegistry::names() const {
  std::vector<std::string> result;
  for (const Entry& entry : entries_) result.push_back(entry.info.name);
  return result;
}

namespace detail {

SolutionRegistration::SolutionRegistration(const char* type_name, SolutionInfo (*describe)(),
                                           SolutionRegistry::Factory factory, const char* source_file,
                                           const char* folder_name) noexcept {
  try {
    try {
      SolutionInfo info = describe();
      if (folder_name != nullptr && info.name != folder_name) {
        SolutionRegistry::instance().add_registration_error(
            std::string(type_name) + "::describe() names the solution '" + info.name + "', but its folder " +
            folder_of(source_file) + " registers it as '" + folder_name +
            "' (vlbench_add_solution NAME): the folder, NAME and describe() must give one name");
        return;
      }
      SolutionRegistry::instance().add(std::move(info), std::move(factory), source_file);
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
