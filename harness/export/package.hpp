#pragma once
// `vlbench package`: a registered solution as a SOL-ExecBench solution.json (the Solution schema: name, definition,
// author, description, spec, sources), ready for the leaderboard's evaluator. The sources are the solution's folder,
// the torch-binding entry file harness/export/torch_binding.cpp, and the closure of the project files they need: every
// `#include "..."` followed from the project root, plus the implementation file beside each project header.
// SOL-ExecBench's build step compiles only the translation units at the top of the package folder, so those are
// placed there, named after their project path (harness/core/errors.cpp -> harness_core_errors.cpp); headers keep
// their paths, and the package folder is on the include path.
// docs/leaderboard.md explains the choices (target hardware, languages, flags).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/solution/solution.hpp"

namespace vlb {

inline constexpr std::string_view kBindingEntryFile = "harness/export/torch_binding.cpp";
inline constexpr std::string_view kBindingEntrySymbol = "run";

// The package of `info`'s solution, read from `source_root`/solutions/<name>/ and the project files it includes.
// Throws UsageError when the solution has no folder there or its name is not a C identifier (the binding receives it
// as a compile definition), InputError naming the file and line for an include that does not resolve inside the
// project or that the evaluator cannot satisfy (fmt, nlohmann, CLI11, Catch2).
nlohmann::json make_solution_package(const SolutionInfo& info, const std::filesystem::path& source_root);

// Writes the package as indented JSON, atomically (temporary file in the same folder, then rename); an existing file
// at PATH is kept as PATH.~N~ (core/output_file.hpp), whose path is returned.
std::optional<std::filesystem::path> write_solution_package(const std::filesystem::path& path,
                                                            const nlohmann::json& package);

// `vlbench package --solution NAME [-o solution.json]`.
struct PackageRequest {
  std::string solution;
  std::filesystem::path source_root;  // the vlbench source tree (default_workloads_dir() / "..")
  std::filesystem::path output_path;  // "<name>.solution.json" when empty
};
struct PackagedSolution {
  std::filesystem::path path;  // the file written
  std::size_t source_files = 0;
  std::string entry_point;     // "<file>::<symbol>": harness_export_torch_binding.cpp::run
  std::optional<std::filesystem::path> kept;  // where the file that was at the output path is kept
};
// Looks the solution up among `known` (the catalog: UsageError naming them; the built-in `reference` is refused, it
// has no solution folder), checks the output path, packages the solution and writes it; an output path that is one
// of the package's sources is refused.
PackagedSolution package_solution(const PackageRequest& request, const std::vector<SolutionInfo>& known);

}  // namespace vlb
