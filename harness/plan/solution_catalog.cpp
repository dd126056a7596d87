#include "harness/plan/solution_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "harness/isolation/child_process.hpp"
#include "harness/solution/registry.hpp"
#include "harness/solution/solution_module.hpp"

namespace vlb {
namespace {

constexpr double kDescribeTimeoutS = 120;
constexpr const char* kModulePrefix = "vlbench_solution_";

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) joined += (i == 0 ? "" : separator) + items[i];
  return joined;
}

// The non-empty items of a ':'-separated list of paths (an environment variable's).
std::vector<std::string> path_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ':');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// The modules in `folder`: files named vlbench_solution_*.so, by name.
std::vector<std::filesystem::path> modules_in(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with(kModulePrefix) && name.ends_with(".so")) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::filesystem::path build_module_folder() {
  std::error_code ignored;
  const std::filesystem::path beside = std::filesystem::read_symlink(own_executable(), ignored).parent_path() / "solution_modules";
  if (std::filesystem::is_directory(beside, ignored)) return beside;
#ifdef VLBENCH_BUILD_DIR
  return std::filesystem::path(VLBENCH_BUILD_DIR) / "solution_modules";
#else
  return beside;
#endif
}

// The describer's answer for one module.
struct DescribedModule {
  std::string module;
  std::optional<ModuleDescription> description;
  std::optional<std::string> error;
};

}  // namespace

template <>
struct JsonFields<DescribedModule> {
  static constexpr auto list = std::tuple{json_field("module", &DescribedModule::module),
                                          json_field("description", &DescribedModule::description),
                                          json_field("error", &DescribedModule::error)};
};

std::vector<std::filesystem::path> SolutionCatalog::default_modules() {
  std::vector<std::filesystem::path> modules;
  const char* chosen = std::getenv("VLBENCH_SOLUTION_MODULES");
  if (chosen == nullptr || *chosen == '\0') return modules_in(build_module_folder());
  for (const std::string& item : path_list(chosen)) {
    if (std::filesystem::is_directory(item)) {
      for (auto& module : modules_in(item)) modules.push_back(std::move(module));
    } else {
      modules.emplace_back(item);
    }
  }
  return modules;
}

const SolutionCatalog& SolutionCatalog::instance() {
  static std::once_flag once;
  static SolutionCatalog catalog;
  std::call_once(once, [] {
    catalog = describe(default_modules());
    catalog.add_packages(default_package_folders());
  });
  return catalog;
}

SolutionCatalog SolutionCatalog::describe(const std::vector<std::filesystem::path>& modules) {
  SolutionCatalog catalog;
  if (modules.empty()) return catalog;
  const ScratchDir scratch("describe");
  std::vector<std::string> arguments = {"vlbench-worker", "--describe", scratch.path().string()};
  for (const auto& module : modules) arguments.push_back(std::filesystem::absolute(module).string());
  const auto output = scratch.path() / "modules.json", log = scratch.path() / "describe.log";
  ChildProcess describer(worker_executable(), arguments, ChildOptions{log, output, {}});
  const std::optional<int> status = describer.wait_for(kDescribeTimeoutS);
  if (!status || !exited_normally(*status, 0)) {
    const std::string how = status ? describe_exit(*status) : "ran past its time limit";
    throw SystemError(fmt::format("describing the solution modules failed: the describer {}: {}", how,
                                  last_lines(log, 3)));
  }
  const std::string source = "the solution modules' descriptions";
  const JsonDocument document = parse_json(read_text_file(output, "describer output"), source);
  for (const DescribedModule& described : read_json<std::vector<DescribedModule>>(JsonValue(document, source))) {
    if (described.error) {
      catalog.errors_.push_back(*described.error);
      continue;
    }
    if (!described.description) continue;
    for (const std::string& error : described.description->errors) catalog.errors_.push_back(error);
    for (const ModuleSolution& solution : described.description->solutions) {
      catalog.add({solution.info, described.module, solution.source_file, {}, true, nullptr});
    }
  }
  return catalog;
}

void SolutionCatalog::add(CatalogEntry entry) {
  const auto existing = std::find_if(entries_.begin(), entries_.end(),
                                     [&](const CatalogEntry& e) { return e.info.name == entry.info.name; });
  if (existing != entries_.end()) {
    errors_.push_back(fmt::format("solution '{}' is registered twice: in {} ({}) and in {} ({}); give each solution "
                                  "its own name", entry.info.name, registration_folder(existing->source_file),
                                  existing->source_file, registration_folder(entry.source_file), entry.source_file));
    return;
  }
  entries_.push_back(std::move(entry));
  std::sort(entries_.begin(), entries_.end(),
            [](const CatalogEntry& a, const CatalogEntry& b) { return a.info.name < b.info.name; });
}

void SolutionCatalog::require_clean() const {
  if (errors_.empty()) return;
  throw UsageError("solutions could not be registered (a build mistake: fix the solution's describe() or its "
                   "VLBENCH_REGISTER_SOLUTION line): " + join(errors_, "; "));
}

std::vector<std::filesystem::path> SolutionCatalog::default_package_folders() {
  std::vector<std::filesystem::path> folders;
  std::error_code error;
  if (const char* chosen = std::getenv("VLBENCH_SOLUTION_PACKAGES"); chosen != nullptr) {
    for (const std::string& item : path_list(chosen)) folders.emplace_back(item);
    return folders;
  }
  for (const auto& entry : std::filesystem::directory_iterator(VLBENCH_SOURCE_SOLUTIONS_DIR, error)) {
    if (std::filesystem::is_regular_file(entry.path() / kPackageFile, error)) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

namespace {

CatalogEntry package_entry(const std::filesystem::path& path) {
  auto package = std::make_shared<const SolutionPackage>(read_solution_package(path));
  const std::filesystem::path file = std::filesystem::is_directory(path) ? path / kPackageFile : path;
  return {package->info, package->folder, file.string(), package->entry_point, package->destination_passing_style,
          package};
}

}  // namespace

void SolutionCatalog::add_packages(const std::vector<std::filesystem::path>& folders) {
  for (const std::filesystem::path& folder : folders) {
    try {
      add(package_entry(folder));
    } catch (const Error& error) {
      errors_.push_back(error.message());
    }
  }
}

const CatalogEntry& SolutionCatalog::named_package(const std::string& path) const {
  const std::lock_guard<std::mutex> hold(*named_packages_lock_);
  const auto found = named_packages_.find(path);
  if (found != named_packages_.end()) return found->second;
  return named_packages_.emplace(path, package_entry(path)).first->second;
}

bool SolutionCatalog::contains(const std::string& name) const {
  if (names_solution_package(name)) {
    (void)named_package(name);  // a package that cannot be read throws its own error
    return true;
  }
  return std::any_of(entries_.begin(), entries_.end(), [&](const CatalogEntry& e) { return e.info.name == name; });
}

void SolutionCatalog::require(const std::string& name) const {
  if (!contains(name)) {
    throw UsageError(fmt::format("unknown solution '{}'; registered solutions: {} (see vlbench --list)", name,
                                 join(names(), ", ")));
  }
}

const CatalogEntry& SolutionCatalog::at(const std::string& name) const {
  if (names_solution_package(name)) return named_package(name);
  require(name);
  return *std::find_if(entries_.begin(), entries_.end(), [&](const CatalogEntry& e) { return e.info.name == name; });
}

std::vector<SolutionInfo> SolutionCatalog::list() const {
  std::vector<SolutionInfo> infos;
  for (const CatalogEntry& entry : entries_) infos.push_back(entry.info);
  return infos;
}

std::vector<std::string> SolutionCatalog::names() const {
  std::vector<std::string> result;
  for (const CatalogEntry& entry : entries_) result.push_back(entry.info.name);
  return result;
}

}  // namespace vlb
