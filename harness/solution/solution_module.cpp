#include "harness/solution/solution_module.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"

namespace vlb {
namespace {

using AbiFunction = const char* (*)();
using DescribeFunction = const char* (*)();
using CreateFunction = Solution* (*)(const char*, char*, std::size_t);
using DestroyFunction = void (*)(Solution*);

}  // namespace

std::string solution_module_abi() {
  return fmt::format("vlbench-solution-module/1 {} FusionArgs:{} DeviceInfo:{} SolutionInfo:{} Solution:{}",
                     VLBENCH_VERSION, sizeof(FusionArgs), sizeof(DeviceInfo), sizeof(SolutionInfo), sizeof(Solution));
}

std::shared_ptr<SolutionModule> SolutionModule::open(const std::filesystem::path& path) {
  // RTLD_LOCAL: each module keeps its own copy of the harness code it was linked with.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw SystemError(fmt::format("cannot load the solution module {}: {}", path.string(), why ? why : "unknown"));
  }
  std::shared_ptr<SolutionModule> module(new SolutionModule(path, handle));
  const auto abi = reinterpret_cast<AbiFunction>(dlsym(handle, "vlbench_module_abi"));
  if (abi == nullptr) {
    throw InputError(fmt::format("{} is not a vlbench solution module (it exports no vlbench_module_abi)", path.string()));
  }
  if (const std::string theirs = abi(); theirs != solution_module_abi()) {
    throw InputError(fmt::format("the solution module {} was built by another vlbench ({}; this one is {}): rebuild it",
                                 path.string(), theirs, solution_module_abi()));
  }
  return module;
}

SolutionModule::~SolutionModule() {
  // Never unloaded: CUDA keeps the module's kernels registered until the process exits.
}

void* SolutionModule::symbol(const char* name) const {
  void* found = dlsym(handle_, name);
  if (found == nullptr) throw InputError(fmt::format("the solution module {} lacks {}", path_.string(), name));
  return found;
}

ModuleDescription SolutionModule::describe() const {
  const auto describe = reinterpret_cast<DescribeFunction>(symbol("vlbench_module_describe"));
  const std::string source = fmt::format("the description of {}", path_.string());
  const JsonDocument document = parse_json(describe(), source);
  return read_json<ModuleDescription>(JsonValue(document, source));
}

SolutionPtr SolutionModule::create(const std::string& name) const {
  const auto create = reinterpret_cast<CreateFunction>(symbol("vlbench_module_create"));
  const auto destroy = reinterpret_cast<DestroyFunction>(symbol("vlbench_module_destroy"));
  std::array<char, 2048> error{};
  Solution* solution = create(name.c_str(), error.data(), error.size());
  if (solution == nullptr) throw Error(error.data(), ExitCode::kCaseFailed);
  return SolutionPtr(solution, destroy);
}

}  // namespace vlb
