// The exports of a solution module (solution_module.hpp), compiled into every module and into nothing else: the
// module's own registry (its solutions' VLBENCH_REGISTER_SOLUTION lines ran when it was loaded) behind a C interface.
#include <cstdio>
#include <exception>
#include <string>

#include "harness/solution/registry.hpp"
#include "harness/solution/solution_module.hpp"

namespace {

void copy_message(const std::string& message, char* error, std::size_t error_bytes) {
  if (error != nullptr && error_bytes > 0) std::snprintf(error, error_bytes, "%s", message.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* vlbench_module_abi() {
  static const std::string abi = vlb::solution_module_abi();
  return abi.c_str();
}

extern "C" __attribute__((visibility("default"))) const char* vlbench_module_describe() {
  static const std::string description = [] {
    vlb::ModuleDescription module;
    const vlb::SolutionRegistry& registry = vlb::SolutionRegistry::instance();
    for (const vlb::SolutionInfo& info : registry.list()) module.solutions.push_back({info, registry.source_file(info.name)});
    module.errors = registry.registration_errors();
    return vlb::write_json(module).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }();
  return description.c_str();
}

extern "C" __attribute__((visibility("default"))) vlb::Solution* vlbench_module_create(const char* name, char* error,
                                                                                       std::size_t error_bytes) {
  try {
    if (!vlb::SolutionRegistry::instance().contains(name)) {
      copy_message(std::string("the module registers no solution '") + name + "'", error, error_bytes);
      return nullptr;
    }
    return vlb::SolutionRegistry::instance().create(name).release();
  } catch (const std::exception& thrown) {
    copy_message(std::string("the solution's constructor threw: ") + thrown.what(), error, error_bytes);
  } catch (...) {
    copy_message("the solution's constructor threw something that is not a std::exception", error, error_bytes);
  }
  return nullptr;
}

extern "C" __attribute__((visibility("default"))) void vlbench_module_destroy(vlb::Solution* solution) {
  delete solution;
}
