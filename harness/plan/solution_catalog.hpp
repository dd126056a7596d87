#pragma once
// The solutions this vlbench can run, without loading any of them here: the solution modules (solution_module.hpp)
// found in $VLBENCH_SOLUTION_MODULES (module files or folders, ':'-separated) or else in this build's
// solution_modules/ folder, each described by the sandboxed describer (`vlbench-worker --describe`), so that a
// solution's static initializers never run in the judge's process; and the Python solution packages
// (solution_package.hpp): the folders of solutions/ that hold a solution.json, and any package a --solution PATH
// names. --list, --dry-run and every run read it.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "harness/plan/solution_package.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

struct CatalogEntry {
  SolutionInfo info;
  std::filesystem::path module;  // the solution module; a package's folder
  std::string source_file;       // where its VLBENCH_REGISTER_SOLUTION line is; a package's solution.json
  std::string entry_point;       // a Python package's "<file>.py::<function>"; empty for a module
  bool destination_passing_style = true;
  // A package (null for a module): what upstream validates. Python and C++ packages alike run in the Python worker.
  std::shared_ptr<const SolutionPackage> package;

  bool is_python_package() const { return package != nullptr; }
  bool builds_extension() const { return package != nullptr && package->builds_extension; }  // a C++ package
};

class SolutionCatalog {
 public:
  // This process's catalog: the default modules, described on first use. Throws SystemError when the describer
  // cannot run.
  static const SolutionCatalog& instance();
  // The catalog of these modules (tests; the default list).
  static SolutionCatalog describe(const std::vector<std::filesystem::path>& modules);
  static std::vector<std::filesystem::path> default_modules();
  // The folders of this source tree's solutions/ that hold a solution.json: $VLBENCH_SOLUTION_PACKAGES
  // (':'-separated folders) when set.
  static std::vector<std::filesystem::path> default_package_folders();

  // Throws UsageError listing every registration error (a build mistake: exit 2).
  void require_clean() const;
  const std::vector<std::string>& errors() const { return errors_; }
  // A name, or a package's path (names_solution_package): a package is read, and validated with SOL-ExecBench's models,
  // when first named, so that its errors are the run's (exit 2).
  bool contains(const std::string& name) const;
  // Throws UsageError naming the known solutions; a package's errors as read_solution_package's and the models'.
  void require(const std::string& name) const;
  const CatalogEntry& at(const std::string& name) const;
  const std::vector<CatalogEntry>& entries() const { return entries_; }  // by name
  std::vector<SolutionInfo> list() const;
  std::vector<std::string> names() const;

 private:
  void add(CatalogEntry entry);
  void add_packages(const std::vector<std::filesystem::path>& folders);
  const CatalogEntry& named_package(const std::string& path) const;
  std::vector<CatalogEntry> entries_;
  std::vector<std::string> errors_;
  // Packages named by path, read on first use.
  mutable std::map<std::string, CatalogEntry> named_packages_;
  mutable std::unique_ptr<std::mutex> named_packages_lock_ = std::make_unique<std::mutex>();
};

}  // namespace vlb
