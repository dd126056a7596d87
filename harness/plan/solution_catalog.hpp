#pragma once
// The solutions this vlbench can run, without loading any of them here: the solution modules (solution_module.hpp)
// found in $VLBENCH_SOLUTION_MODULES (module files or folders, ':'-separated) or else in this build's
// solution_modules/ folder, each described by the sandboxed describer (`vlbench-worker --describe`), so that a
// solution's static initializers never run in the judge's process. --list, --dry-run and every run read it.
#include <filesystem>
#include <string>
#include <vector>

#include "harness/solution/solution.hpp"

namespace vlb {

struct CatalogEntry {
  SolutionInfo info;
  std::filesystem::path module;
  std::string source_file;  // where its VLBENCH_REGISTER_SOLUTION line is
};

class SolutionCatalog {
 public:
  // This process's catalog: the default modules, described on first use. Throws SystemError when the describer
  // cannot run.
  static const SolutionCatalog& instance();
  // The catalog of these modules (tests; the default list).
  static SolutionCatalog describe(const std::vector<std::filesystem::path>& modules);
  static std::vector<std::filesystem::path> default_modules();

  // Throws UsageError listing every registration error (a build mistake: exit 2).
  void require_clean() const;
  const std::vector<std::string>& errors() const { return errors_; }
  bool contains(const std::string& name) const;
  // Throws UsageError naming the known solutions.
  void require(const std::string& name) const;
  const CatalogEntry& at(const std::string& name) const;
  const std::vector<CatalogEntry>& entries() const { return entries_; }  // by name
  std::vector<SolutionInfo> list() const;
  std::vector<std::string> names() const;

 private:
  void add(CatalogEntry entry);
  std::vector<CatalogEntry> entries_;
  std::vector<std::string> errors_;
};

}  // namespace vlb
