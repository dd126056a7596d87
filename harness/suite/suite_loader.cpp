// Finds and loads a suite: the built-in one ("all") or a workload JSONL given by path.
#include <fmt/format.h>

#include <cstdlib>

#include "harness/core/errors.hpp"
#include "harness/suite/suite.hpp"

namespace vlb {

namespace {
constexpr const char* kDefinitionFile = "definition.json";
constexpr const char* kWorkloadsFile = "workloads.jsonl";

Suite load_suite_files(std::string name, const std::filesystem::path& definition_path,
                       const std::filesystem::path& workloads_path) {
  Suite suite;
  suite.name = std::move(name);
  suite.definition = load_definition(definition_path);
  suite.workloads = load_workloads(workloads_path, suite.definition);
  suite.workloads_path = workloads_path;
  return suite;
}

// The workloads folder (--workloads-dir, VLBENCH_WORKLOADS_DIR) said as such, rather than as a missing file in it.
void check_workloads_dir(const std::filesystem::path& folder) {
  std::error_code status;
  if (!std::filesystem::exists(folder, status)) {
    throw InputError(fmt::format("workloads folder {} does not exist (it comes from --workloads-dir or "
                                 "VLBENCH_WORKLOADS_DIR; without them vlbench uses the source tree's workloads/)",
                                 folder.string()));
  }
  if (!std::filesystem::is_directory(folder, status)) {
    throw InputError(fmt::format("workloads folder {} is not a folder: give the folder that holds definition.json, "
                                 "workloads.jsonl, gpus.json and baselines/",
                                 folder.string()));
  }
}

}  // namespace

Suite load_suite(const std::string& spec, const std::filesystem::path& workloads_dir) {
  if (spec == "all") {
    check_workloads_dir(workloads_dir);
    return load_suite_files("all", workloads_dir / kDefinitionFile, workloads_dir / kWorkloadsFile);
  }
  const std::filesystem::path path(spec);
  std::error_code status;
  if (std::filesystem::is_directory(path, status)) {
    throw InputError(fmt::format("{}: is a folder; give 'all' or the path of a workload .jsonl file", spec));
  }
  // Something that is there but no readable file (a looping or broken link, a device) is read, to say why.
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, status))) {
    throw InputError(
        fmt::format("{}: suite file not found; give 'all' (the built-in suite) or the path of a "
                    "workload .jsonl file",
                    spec));
  }
  // A suite file's definition is the definition.json beside it, else the built-in one. Anything named so beside it
  // (a folder, a broken or looping link) is that definition, and fails as one: never silently the built-in one.
  const std::filesystem::path beside = path.parent_path() / kDefinitionFile;
  const bool has_own_definition = std::filesystem::exists(std::filesystem::symlink_status(beside, status));
  if (!has_own_definition) check_workloads_dir(workloads_dir);
  return load_suite_files(path.stem().string(), has_own_definition ? beside : workloads_dir / kDefinitionFile, path);
}

std::filesystem::path default_workloads_dir() {
  if (const char* from_environment = std::getenv("VLBENCH_WORKLOADS_DIR");
      from_environment != nullptr && *from_environment != '\0') {
    return from_environment;
  }
#ifdef VLBENCH_SOURCE_WORKLOADS_DIR
  return VLBENCH_SOURCE_WORKLOADS_DIR;
#else
  return "workloads";  // relative to the current directory when the build does not record the source tree
#endif
}

}  // namespace vlb
