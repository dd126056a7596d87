#include "harness/plan/extension_build.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <vector>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/text_file.hpp"
#include "harness/isolation/child_process.hpp"

namespace vlb {
namespace fs = std::filesystem;
namespace {

constexpr double kKeyTimeoutS = 300;    // the builder's import of torch
constexpr double kBuildTimeoutS = 3600;  // a CUTLASS package on few cores
constexpr int kCannotBuild = 3;          // build_extension.py: no torch, or no CUDA build of it
constexpr int kLogLines = 30;
constexpr const char* kModule = "benchmark_kernel.so";

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr ? value : "";
}

fs::path builder_script() { return compiled_in_path("VLBENCH_EXTENSION_BUILDER", VLBENCH_EXTENSION_BUILDER); }

// Upstream reads $CUTLASS_DIR; without it, the CUTLASS this vlbench was built with.
std::string cutlass_dir() { return compiled_in_path("CUTLASS_DIR", VLBENCH_CUTLASS_DIR).string(); }

struct Staging {
  fs::path document, log, output;
};

std::string build_key(const SolutionPackage& package, const Staging& staged, int compute_capability) {
  const std::vector<std::string> arguments = {"python3", "-B", builder_script().string(), "key",
                                              staged.document.string(), std::to_string(compute_capability),
                                              cutlass_dir()};
  ChildProcess keyer(python_interpreter(), arguments, ChildOptions{staged.log, staged.output, {}});
  const std::optional<int> status = keyer.wait_for(kKeyTimeoutS);
  if (status && exited_normally(*status, kCannotBuild)) throw BuildFailure(false, last_lines(staged.log, 3));
  if (!status || !exited_normally(*status, 0)) {
    throw BuildFailure(false, fmt::format("{}'s builder could not start ({}): {}", package.info.name,
                                          status ? describe_exit(*status) : "it ran past its time limit",
                                          last_lines(staged.log, 5)));
  }
  const std::string said = read_text_file(staged.output, "the builder's output");
  const JsonDocument answer = parse_json(said, "the builder's output");
  return answer.at("key").get<std::string>();
}

// A fresh folder beside the cache's entries, for one build; renamed to the key's folder when the build succeeds.
fs::path fresh_build_folder(const fs::path& root, const std::string& key) {
  std::error_code made;
  fs::create_directories(root, made);
  if (made) {
    throw BuildFailure(false, fmt::format("cannot make the cache folder {}: {} (set VLBENCH_CACHE_DIR to another)",
                                          root.string(), made.message()));
  }
  std::string pattern = (root / (key + ".building-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw BuildFailure(false, fmt::format("cannot make a build folder in {}: {}", root.string(),
                                          std::error_code(errno, std::generic_category()).message()));
  }
  return pattern;
}

// The build, confined to its folder by vlbench-worker --confine.
void run_build(const SolutionPackage& package, const Staging& staged, int compute_capability, const fs::path& folder) {
  const fs::path log = folder / "build.log";
  const std::vector<std::string> arguments = {"vlbench-worker", "--confine", folder.string(),
                                              python_interpreter().string(), "-B", builder_script().string(),
                                              "build", staged.document.string(), std::to_string(compute_capability),
                                              cutlass_dir(), folder.string()};
  ChildProcess builder(worker_executable(), arguments, log);
  const std::optional<int> status = builder.wait_for(kBuildTimeoutS);
  if (status && exited_normally(*status, 0)) return;
  if (status && exited_normally(*status, kCannotBuild)) throw BuildFailure(false, last_lines(log, 3));
  throw BuildFailure(true,
                     fmt::format("{} did not build ({}); the compiler's last lines:{}\nthe whole log: {}",
                                 package.info.name,
                                 status ? describe_exit(*status) : fmt::format("past {:.0f} s", kBuildTimeoutS),
                                 "\n  " + last_lines(log, kLogLines, "\n  "), log.string()),
                     log);
}

}  // namespace

fs::path extension_cache_root() {
  if (const std::string chosen = environment("VLBENCH_CACHE_DIR"); !chosen.empty()) {
    return fs::path(chosen) / "extensions";
  }
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) {
    return fs::path(xdg) / "vlbench" / "extensions";
  }
  if (const std::string home = environment("HOME"); !home.empty()) {
    return fs::path(home) / ".cache" / "vlbench" / "extensions";
  }
  throw BuildFailure(false, "no cache folder for built packages: set VLBENCH_CACHE_DIR (or HOME)");
}

BuiltExtension build_extension(const SolutionPackage& package, int compute_capability) {
  const ScratchDir scratch("extension");
  const Staging staged{scratch.path() / "solution.json", scratch.path() / "builder.log", scratch.path() / "key.json"};
  std::ofstream(staged.document, std::ios::binary) << package.document.dump();

  BuiltExtension built;
  built.key = build_key(package, staged, compute_capability);
  const fs::path root = extension_cache_root();
  const fs::path entry = root / built.key;
  std::error_code error;
  if (fs::is_regular_file(entry / kModule, error) && fs::is_regular_file(entry / "built.json", error)) {
    built.module = entry / kModule;
    built.cached = true;
    return built;
  }
  const fs::path folder = fresh_build_folder(root, built.key);
  run_build(package, staged, compute_capability, folder);
  std::error_code moved;
  fs::rename(folder, entry, moved);
  if (moved) {  // another vlbench built the same key meanwhile: theirs serves, ours goes (we made it)
    if (!fs::is_regular_file(entry / kModule, error)) {
      throw BuildFailure(false, fmt::format("cannot move the build {} to {}: {}", folder.string(), entry.string(),
                                            moved.message()));
    }
    fs::remove_all(folder, error);
  }
  built.module = entry / kModule;
  return built;
}

}  // namespace vlb
