#pragma once
// A solution module: one solution folder built as a shared library (cmake/VlbenchSolution.cmake) that only the
// processes running solution code load: the sandboxed worker, the sandboxed describer (which reads the solutions'
// descriptions for --list and the catalog), and this process itself only with --no-isolation. The judge never loads
// one, so no solution code (not even a static initializer) runs beside it.
// A module exports, with C linkage (module_entry.cpp):
//   vlbench_module_abi()       the ABI tag below; a module of another vlbench build is refused
//   vlbench_module_describe()  JSON: {"solutions": [SolutionInfo + "source_file"], "errors": [registration errors]}
//   vlbench_module_create(name, error, error_bytes)   a new instance, or null with the reason in `error`
//   vlbench_module_destroy(solution)
#include <filesystem>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "harness/core/json_fields.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

// Changes whenever what crosses the module boundary changes (the Solution interface, FusionArgs, DeviceInfo).
std::string solution_module_abi();

struct ModuleSolution {
  SolutionInfo info;
  std::string source_file;  // the file with its VLBENCH_REGISTER_SOLUTION line (for messages)
};

struct ModuleDescription {
  std::vector<ModuleSolution> solutions;
  std::vector<std::string> errors;  // registrations that failed inside the module
};

class SolutionModule {
 public:
  // dlopen: SystemError with the loader's message when the file cannot be loaded, InputError for a module of another
  // build (its ABI tag) or a file that is no solution module.
  static std::shared_ptr<SolutionModule> open(const std::filesystem::path& path);
  ~SolutionModule();
  SolutionModule(const SolutionModule&) = delete;
  SolutionModule& operator=(const SolutionModule&) = delete;

  const std::filesystem::path& path() const { return path_; }
  ModuleDescription describe() const;
  // A new instance, its constructor run inside the module; SolutionFault-like failures come back as Error with the
  // module's message. The instance keeps the module loaded.
  std::unique_ptr<Solution, void (*)(Solution*)> create(const std::string& name) const;

 private:
  SolutionModule(std::filesystem::path path, void* handle) : path_(std::move(path)), handle_(handle) {}
  void* symbol(const char* name) const;

  std::filesystem::path path_;
  void* handle_ = nullptr;
};

using SolutionPtr = std::unique_ptr<Solution, void (*)(Solution*)>;

}  // namespace vlb

namespace vlb {
template <>
struct JsonFields<SolutionInfo> {
  using R = SolutionInfo;
  static constexpr auto list = std::tuple{json_field("name", &R::name), json_field("author", &R::author),
                                          json_field("description", &R::description),
                                          json_field("languages", &R::languages),
                                          json_field("target_compute_capabilities", &R::target_compute_capabilities)};
};
template <>
struct JsonFields<ModuleSolution> {
  static constexpr auto list =
      std::tuple{json_field("info", &ModuleSolution::info), json_field("source_file", &ModuleSolution::source_file)};
};
template <>
struct JsonFields<ModuleDescription> {
  static constexpr auto list = std::tuple{json_field("solutions", &ModuleDescription::solutions),
                                          json_field("errors", &ModuleDescription::errors)};
};
}  // namespace vlb
