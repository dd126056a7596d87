#include "harness/plan/solution_package.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/output_file.hpp"
#include "harness/core/problem.hpp"
#include "harness/core/text_file.hpp"
#include "harness/isolation/child_process.hpp"

namespace vlb {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 5> kPythonLanguages = {"pytorch", "triton", "cute_dsl", "cutile",
                                                              "cudnn_frontend"};
constexpr std::array<std::string_view, 4> kCppLanguages = {"cutlass", "cudnn", "cublas", "cuda_cpp"};
constexpr double kValidationTimeoutS = 120;
constexpr int kModelsCannotRun = 3;  // validate_solution_package.py's exit code
// What SOL-ExecBench's build step compiles (build_ext.py): these files at the package's top.
constexpr std::array<std::string_view, 5> kTranslationUnits = {".cu", ".cpp", ".cc", ".cxx", ".c"};

bool is_translation_unit(const std::string& path) {
  return std::any_of(kTranslationUnits.begin(), kTranslationUnits.end(),
                     [&](std::string_view suffix) { return path.ends_with(suffix); });
}

template <std::size_t N>
bool among(const std::array<std::string_view, N>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool is_solution_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

// A source's path: relative, inside the package, without '..' or an empty part.
void check_source_path(const JsonValue& where, const std::string& path) {
  const fs::path relative(path);
  bool inside = !path.empty() && relative.is_relative() && path.find('\\') == std::string::npos;
  for (const fs::path& part : relative) inside = inside && part != ".." && part != "." && !part.empty();
  if (!inside) where.fail(fmt::format("'{}' is not a path inside the package (relative, no '..')", path));
}

// The spec's languages, all of one group (SOL-ExecBench does not mix them).
std::vector<std::string> languages_of(const JsonValue& spec) {
  const JsonValue list = spec.at("languages");
  std::vector<std::string> languages;
  for (const JsonValue& language : list.elements()) languages.push_back(language.as_non_empty_string());
  if (languages.empty()) list.fail("must list at least one language");
  for (const std::string& language : languages) {
    if (!among(kPythonLanguages, language) && !among(kCppLanguages, language)) {
      list.fail(fmt::format("unknown language '{}'; SOL-ExecBench's are {}, {}", language,
                            fmt::join(kPythonLanguages, ", "), fmt::join(kCppLanguages, ", ")));
    }
  }
  const bool cpp = among(kCppLanguages, languages.front());
  for (const std::string& language : languages) {
    if (among(kCppLanguages, language) != cpp) {
      list.fail(fmt::format("mixes the Python group ({}) with the C++ group ({}), which SOL-ExecBench does not allow",
                            fmt::join(kPythonLanguages, ", "), fmt::join(kCppLanguages, ", ")));
    }
  }
  return languages;
}

bool is_identifier(const std::string& text) {
  return !text.empty() && !(text[0] >= '0' && text[0] <= '9') && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The entry point: "<file>.py::<function>" for the Python group; for the C++ group "<file>::<function>", a
// translation unit at the package's top (the only ones SOL-ExecBench's build compiles) and the function its torch
// binding defines.
std::string entry_point_of(const JsonValue& spec, bool builds_extension) {
  const JsonValue value = spec.at("entry_point");
  const std::string entry = value.as_non_empty_string();
  const std::string form = builds_extension ? "<file>.cu::<function>" : "<file>.py::<function>";
  const std::size_t split = entry.find("::");
  if (split == std::string::npos || entry.find("::", split + 2) != std::string::npos) {
    value.fail(fmt::format("'{}' is not of the form '{}'", entry, form));
  }
  const std::string file = entry.substr(0, split), function = entry.substr(split + 2);
  const bool file_fits = builds_extension ? is_translation_unit(file) && file.find('/') == std::string::npos
                                          : file.ends_with(".py");
  if (!file_fits || !is_identifier(function)) value.fail(fmt::format("'{}' is not of the form '{}'", entry, form));
  check_source_path(value, file);
  return entry;
}

// Every .py file at the top of `folder`, by name: a folder package's sources when its solution.json lists none.
std::vector<std::string> python_files_in(const fs::path& folder) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Source {
  std::string path;
  std::string content;
};

// The sources: inline where "content" is given, else read from the folder (a folder package only).
std::vector<Source> sources_of(const JsonValue& root, const std::optional<fs::path>& folder, bool builds_extension) {
  std::vector<Source> sources;
  const std::optional<JsonValue> listed = root.find("sources");
  if (!listed) {
    if (!folder) root.fail("sources: required field is missing (a solution.json file carries its sources inline)");
    if (builds_extension) root.fail("sources: required field is missing (a C++ group package lists its sources)");
    for (const std::string& file : python_files_in(*folder)) {
      sources.push_back({file, read_text_file(*folder / file, "source file")});
    }
    if (sources.empty()) root.fail(fmt::format("sources: none listed, and {} holds no .py file", folder->string()));
    return sources;
  }
  for (const JsonValue& source : listed->elements()) {
    const JsonValue path_value = source.at("path");
    Source read{path_value.as_non_empty_string(), {}};
    check_source_path(path_value, read.path);
    if (const std::optional<JsonValue> content = source.find("content")) {
      read.content = content->as_string();
    } else if (folder) {
      read.content = read_text_file(*folder / read.path, "source file");
    } else {
      source.fail("content: required field is missing (a solution.json file carries its sources inline)");
    }
    sources.push_back(std::move(read));
  }
  if (sources.empty()) listed->fail("must list at least one source file");
  return sources;
}

// A solution.json file's sources, written out as files for the worker to import.
std::shared_ptr<ScratchDir> stage(const std::vector<Source>& sources) {
  auto staging = std::make_shared<ScratchDir>("package");
  for (const Source& source : sources) {
    const fs::path file = staging->path() / source.path;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << source.content;
    if (!out.flush()) throw SystemError(fmt::format("cannot write the package's source {}", file.string()));
  }
  return staging;
}

}  // namespace

std::filesystem::path compiled_in_path(const char* variable, const char* fallback) {
  const char* chosen = std::getenv(variable);
  return chosen != nullptr && *chosen != '\0' ? fs::path(chosen) : fs::path(fallback);
}

bool names_solution_package(std::string_view argument) {
  return argument.find('/') != std::string_view::npos || argument.ends_with(".json");
}

SolutionPackage read_solution_package(const fs::path& path) {
  SolutionPackage package;
  package.origin = path;
  std::error_code error;
  const bool folder_form = fs::is_directory(path, error);
  const fs::path file = folder_form ? path / kPackageFile : path;
  const JsonDocument document = parse_json(read_text_file(file, "solution package"), file.string());
  const JsonValue root(document, file.string());
  root.expect_object();

  package.info.name = root.at("name").as_non_empty_string();
  if (!is_solution_name(package.info.name)) {
    root.at("name").fail("a solution name has letters, digits, '_', '-' and '.' only");
  }
  const std::string definition = root.at("definition").as_non_empty_string();
  if (definition != kDefinitionName) {
    root.at("definition").fail(fmt::format("'{}' is not this suite's definition, {}", definition, kDefinitionName));
  }
  package.info.author = root.at("author").as_non_empty_string();
  const std::optional<JsonValue> description = root.find("description");
  package.info.description = description && !description->is_null() ? description->as_string() : "";
  const JsonValue spec = root.at("spec");
  spec.expect_object();
  package.info.languages = languages_of(spec);
  package.builds_extension = among(kCppLanguages, package.info.languages.front());
  package.entry_point = entry_point_of(spec, package.builds_extension);
  if (const std::optional<JsonValue> style = spec.find("destination_passing_style")) {
    package.destination_passing_style = style->as_bool();
  }

  const std::vector<Source> sources =
      sources_of(root, folder_form ? std::optional(path) : std::nullopt, package.builds_extension);
  const std::string entry_file = package.entry_point.substr(0, package.entry_point.find("::"));
  if (std::none_of(sources.begin(), sources.end(), [&](const Source& s) { return s.path == entry_file; })) {
    spec.at("entry_point").fail(fmt::format("its file {} is not among the package's sources", entry_file));
  }
  if (folder_form) {
    package.folder = fs::absolute(path);
  } else {
    auto staging = stage(sources);
    package.folder = staging->path();
    package.staging = std::move(staging);
  }
  package.document = document;
  package.document["sources"] = JsonDocument::array();
  for (const Source& source : sources) {
    package.document["sources"].push_back({{"path", source.path}, {"content", source.content}});
  }
  if (package.info.description.empty()) package.info.description = fmt::format("package {}", path.string());
  return package;
}

std::optional<fs::path> write_inline_package(const SolutionPackage& package, const fs::path& output) {
  const std::string prefix = fmt::format("cannot write the package to {}: ", output.string());
  std::vector<NamedInput> own_files;
  const fs::path given = fs::is_directory(package.origin) ? package.origin / kPackageFile : package.origin;
  own_files.push_back({"the package it writes out", given});
  for (const auto& source : package.document.at("sources")) {
    own_files.push_back({"a source of the package", package.folder / source.at("path").get<std::string>()});
  }
  refuse_output_over_input(output, own_files, prefix);
  return write_output_file(output, package.document.dump(2) + "\n", prefix);
}

namespace {

// python3 on PATH: what scripts/setup.sh prepared SOL-ExecBench's models for, and the default Python worker.
fs::path python3_on_path() {
  const char* search = std::getenv("PATH");
  std::stringstream folders(search != nullptr ? search : "");
  for (std::string folder; std::getline(folders, folder, ':');) {
    const fs::path candidate = fs::path(folder.empty() ? "." : folder) / "python3";
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  throw SystemError("no python3 on PATH: a Python solution needs Python 3.10 or newer (with torch for the solution, "
                    "set VLBENCH_PYTHON to it; with pydantic 2 for SOL-ExecBench's models, as scripts/setup.sh "
                    "prepares python3)");
}

}  // namespace

fs::path python_interpreter() {
  if (const char* chosen = std::getenv("VLBENCH_PYTHON"); chosen != nullptr && *chosen != '\0') {
    if (!fs::is_regular_file(chosen)) {
      throw SystemError(fmt::format("VLBENCH_PYTHON is {}, which is no file: set it to a Python 3.10 or newer",
                                    chosen));
    }
    return chosen;
  }
  return python3_on_path();
}

fs::path python_worker_program() {
  std::error_code error;
  const fs::path beside =
      fs::read_symlink(own_executable(), error).parent_path() / "python_worker" / "vlbench_python_worker.py";
  if (fs::is_regular_file(beside, error)) return beside;
#ifdef VLBENCH_BUILD_DIR
  const fs::path built = fs::path(VLBENCH_BUILD_DIR) / "python_worker" / "vlbench_python_worker.py";
  if (fs::is_regular_file(built, error)) return built;
#endif
  throw SystemError(fmt::format("cannot find the Python worker (python_worker/vlbench_python_worker.py beside {} or "
                                "in the build folder): rebuild vlbench", beside.parent_path().parent_path().string()));
}

void validate_with_upstream(const SolutionPackage& package) {
  const ScratchDir scratch("validate");
  const fs::path document = scratch.path() / "solution.json", output = scratch.path() / "errors.txt",
                 log = scratch.path() / "validate.log";
  std::ofstream(document, std::ios::binary) << package.document.dump();
  const fs::path validator = compiled_in_path("VLBENCH_PACKAGE_VALIDATOR", VLBENCH_PACKAGE_VALIDATOR);
  const std::vector<std::string> arguments = {
      "python3", "-B", validator.string(), document.string(),
      compiled_in_path("VLBENCH_SOL_EXECBENCH_DIR", VLBENCH_SOL_EXECBENCH_DIR).string(),
      VLBENCH_THIRD_PARTY_PYTHON_DIR};
  ChildProcess models(python3_on_path(), arguments, ChildOptions{log, output, {}});
  const std::optional<int> status = models.wait_for(kValidationTimeoutS);
  const std::string said = read_text_file(output, "the models' output");
  if (status && exited_normally(*status, 0)) return;
  if (status && exited_normally(*status, 1)) {
    std::vector<std::string> errors;
    std::istringstream lines(said);
    for (std::string line; std::getline(lines, line);) errors.push_back(line);
    throw InputError(fmt::format("{}: SOL-ExecBench's models reject the package: {}", package.origin.string(),
                                 fmt::join(errors, "; ")));
  }
  if (status && exited_normally(*status, kModelsCannotRun)) {
    throw SystemError(said.empty() ? last_lines(log, 3) : said.substr(0, said.find_last_not_of('\n') + 1));
  }
  throw SystemError(fmt::format("SOL-ExecBench's models could not check {}: the validator {}: {}",
                                package.origin.string(), status ? describe_exit(*status) : "ran past its time limit",
                                last_lines(log, 5)));
}

}  // namespace vlb
