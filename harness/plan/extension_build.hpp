#pragma once
// A C++ group package (cuda_cpp, cutlass, cublas, cudnn) built as SOL-ExecBench's evaluator builds it: a torch
// extension from its sources and compile_options (plan/build_extension.py under the user's Python, the one that runs
// it), cached by the hash of everything the build depends on, so that a second run does not rebuild. The build runs
// confined (vlbench-worker --confine: it writes only in its own folder) and never imports the module; the package's
// code first runs in the sandboxed Python worker, which imports the built module.
//
// Cache: $VLBENCH_CACHE_DIR/extensions, else $XDG_CACHE_HOME/vlbench/extensions, else ~/.cache/vlbench/extensions;
// one folder per key, holding the staged sources, the build files, benchmark_kernel.so, build.log and built.json.
#include <filesystem>
#include <string>

#include "harness/plan/solution_package.hpp"

namespace vlb {

struct BuiltExtension {
  std::filesystem::path module;  // benchmark_kernel.so
  std::string key;
  bool cached = false;  // found built, not built now
};

// Why a package could not be built: `compiled` when its build ran and failed (COMPILE_ERROR, the compiler's last
// lines in the message, the whole log kept at `log`); otherwise this machine cannot build it (SKIPPED).
class BuildFailure : public std::runtime_error {
 public:
  BuildFailure(bool compiled, const std::string& message, std::filesystem::path log = {})
      : std::runtime_error(message), compiled_(compiled), log_(std::move(log)) {}
  bool compiled() const { return compiled_; }
  const std::filesystem::path& log() const { return log_; }

 private:
  bool compiled_;
  std::filesystem::path log_;
};

std::filesystem::path extension_cache_root();

// Builds `package` (builds_extension) for a GPU of `compute_capability` (90 for sm_90), or finds it built.
// Throws BuildFailure.
BuiltExtension build_extension(const SolutionPackage& package, int compute_capability);

}  // namespace vlb
