#include "harness/export/package.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/core/output_file.hpp"
#include "harness/core/text_file.hpp"
#include "harness/solution/solution.hpp"

namespace vlb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every GPU family a solution with no target list may run on (as CMake's default VLBENCH_GPU_TARGETS).
const std::vector<int> kAllFamilies = {90, 100};

// Libraries the project builds with that SOL-ExecBench's evaluator (torch, CUDA, CUTLASS) does not provide.
const std::vector<std::string> kUnavailableIncludePrefixes = {"fmt/", "nlohmann/", "CLI/", "catch2/"};

// Implementations that a package leaves out although their header is packaged: only the harness calls what they
// define, and they need a library the evaluator lacks (fmt). A packaged file that calls one of these functions fails
// the package instead of failing at import time with an undefined symbol.
struct HarnessOnlyImplementation {
  std::string implementation, header;
  std::vector<std::string> functions;
};
const std::vector<HarnessOnlyImplementation> kHarnessOnly = {
    {"harness/core/device_info.cpp", "harness/core/device_info.hpp", {"query_device", "device_count"}},
};

struct IncludeDirective {
  int line = 0;
  bool quoted = false;  // "..." rather than <...>
  std::string target;
};

std::vector<IncludeDirective> scan_includes(const std::string& content) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<IncludeDirective> includes;
  std::istringstream lines(content);
  std::string text;
  for (int line = 1; std::getline(lines, text); ++line) {
    std::smatch match;
    if (std::regex_search(text, match, kInclude)) includes.push_back({line, match[1] == "\"", match[2]});
  }
  return includes;
}

bool is_header(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".hpp" || ext == ".h" || ext == ".cuh";
}

bool is_source_file(const fs::path& path) {
  const std::string ext = path.extension().string();
  return is_header(path) || ext == ".cpp" || ext == ".cc" || ext == ".cu";
}

// foo_sm90.cu -> 90: a per-architecture kernel file, built only for its own family (cmake/GpuTargets.cmake).
std::optional<int> architecture_family(const std::string& path) {
  static const std::regex kPerArchitecture(R"(_sm([0-9]+)\.cu$)");
  std::smatch match;
  if (!std::regex_search(path, match, kPerArchitecture)) return std::nullopt;
  return std::stoi(match[1]);
}

// The project files a package needs: a breadth-first walk over includes, from the root the build puts on the
// include path (the torch builder does the same with the package folder).
class SourceClosure {
 public:
  SourceClosure(fs::path root, std::vector<int> families) : root_(std::move(root)), families_(std::move(families)) {}

  void add(const std::string& relative_path) {
    if (!wanted(relative_path) || !seen_.insert(relative_path).second) return;
    pending_.push_back(relative_path);
    while (!pending_.empty()) {
      const std::string next = pending_.front();
      pending_.pop_front();
      visit(next);
    }
  }

  const std::map<std::string, std::string>& files() const { return files_; }
  // Per file: the includes found beside the including file rather than from the root, as {line, root path}.
  const std::map<std::string, std::vector<std::pair<int, std::string>>>& beside_includes() const {
    return beside_includes_;
  }
  const std::set<std::string>& system_includes() const { return system_includes_; }
  const std::set<int>& per_architecture_families() const { return per_architecture_families_; }

 private:
  bool wanted(const std::string& relative_path) const {
    const std::optional<int> family = architecture_family(relative_path);
    return !family || std::find(families_.begin(), families_.end(), *family) != families_.end();
  }

  void enqueue(const std::string& relative_path) {
    if (wanted(relative_path) && seen_.insert(relative_path).second) pending_.push_back(relative_path);
  }

  void visit(const std::string& relative_path) {
    const std::string content = read_text_file(root_ / relative_path, "source file");
    if (content.empty()) throw InputError(relative_path + " is empty (SOL-ExecBench rejects empty source files)");
    files_[relative_path] = content;
    if (const auto family = architecture_family(relative_path)) per_architecture_families_.insert(*family);
    for (const IncludeDirective& include : scan_includes(content)) {
      const std::string where = relative_path + ":" + std::to_string(include.line);
      if (const std::optional<std::string> project_file = resolve(relative_path, include)) {
        if (*project_file != fs::path(include.target).lexically_normal().generic_string()) {
          beside_includes_[relative_path].emplace_back(include.line, *project_file);
        }
        enqueue(*project_file);
        continue;
      }
      if (include.quoted) {
        throw InputError(where + " includes \"" + include.target +
                         "\", which is neither beside it nor under the project root " + root_.string());
      }
      reject_unavailable(where, include.target);
      system_includes_.insert(include.target);
    }
    if (is_header(relative_path)) add_implementations_of(relative_path);
  }

  // Like the compiler for "...": beside the including file first, then from the root; <...> only from the root.
  // A path that leaves the project is not a project file.
  std::optional<std::string> resolve(const std::string& from, const IncludeDirective& include) const {
    std::vector<fs::path> candidates;
    if (include.quoted) candidates.push_back(fs::path(from).parent_path() / include.target);
    candidates.push_back(fs::path(include.target));
    for (const fs::path& candidate : candidates) {
      const fs::path relative = candidate.lexically_normal();
      if (relative.is_absolute() || relative.empty() || *relative.begin() == "..") continue;
      std::error_code error;
      if (fs::is_regular_file(root_ / relative, error)) return relative.generic_string();
    }
    return std::nullopt;
  }

  static void reject_unavailable(const std::string& where, const std::string& target) {
    for (const std::string& prefix : kUnavailableIncludePrefixes) {
      if (target.rfind(prefix, 0) == 0) {
        throw InputError(where + " includes <" + target + ">, which SOL-ExecBench's evaluator does not provide " +
                         "(it builds with torch, CUDA and CUTLASS only): packaged files must not use it");
      }
    }
  }

  // The .cpp / .cu beside a project header holds what the header declares, which the linker will need.
  void add_implementations_of(const std::string& header) {
    for (const char* extension : {".cpp", ".cu"}) {
      const std::string implementation = fs::path(header).replace_extension(extension).generic_string();
      const bool harness_only = std::any_of(kHarnessOnly.begin(), kHarnessOnly.end(), [&](const auto& entry) {
        return entry.implementation == implementation;
      });
      std::error_code error;
      if (!harness_only && fs::is_regular_file(root_ / implementation, error)) enqueue(implementation);
    }
  }

  fs::path root_;
  std::vector<int> families_;
  std::set<std::string> seen_;
  std::deque<std::string> pending_;
  std::map<std::string, std::string> files_;
  std::map<std::string, std::vector<std::pair<int, std::string>>> beside_includes_;
  std::set<std::string> system_includes_;
  std::set<int> per_architecture_families_;
};

// SOL-ExecBench's SourceFile model rejects any source that names one of these (case-insensitively): its guard against
// timing work hidden on other streams. Only the binding's at::cuda::getCurrentCUDAStream() is allowed.
void reject_forbidden_stream_apis(const std::map<std::string, std::string>& files) {
  static const std::regex kForbidden(
      "cudaStreamCreate|cudaStreamCreateWithFlags|cudaStreamCreateWithPriority|cudaStreamSynchronize"
      "|cudaStreamWaitEvent|cudaStreamDestroy|cuStreamCreate|CUstream|c10::cuda::CUDAStream"
      "|at::cuda::getStreamFromPool",
      std::regex::icase);
  for (const auto& [path, content] : files) {
    std::istringstream lines(content);
    std::string text;
    for (int line = 1; std::getline(lines, text); ++line) {
      std::smatch match;
      if (!std::regex_search(text, match, kForbidden)) continue;
      throw InputError(path + ":" + std::to_string(line) + " uses " + match.str() +
                       ", which SOL-ExecBench's evaluator rejects in any source file (it forbids creating, waiting "
                       "on or synchronizing streams): a packaged solution enqueues all its work on FusionArgs::stream");
    }
  }
}

void reject_harness_only_calls(const std::map<std::string, std::string>& files) {
  for (const HarnessOnlyImplementation& entry : kHarnessOnly) {
    for (const std::string& function : entry.functions) {
      const std::regex call("\\b" + function + "\\s*\\(");
      for (const auto& [path, content] : files) {
        if (path == entry.header || !std::regex_search(content, call)) continue;
        throw InputError(path + " calls " + function + "(), defined in " + entry.implementation +
                         ", which packages leave out (it needs fmt): ask CUDA directly (cudaGetDeviceProperties)");
      }
    }
  }
}

std::vector<std::string> solution_folder_files(const fs::path& root, const SolutionInfo& info) {
  const fs::path folder = root / "solutions" / info.name;
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw UsageError("solution '" + info.name + "' has no folder " + folder.string() +
                     ": only solutions under solutions/ can be packaged (is the source root right?)");
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && is_source_file(entry.path())) {
      files.push_back((fs::path("solutions") / info.name / entry.path().filename()).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError("solution folder " + folder.string() + " holds no .cu/.cpp/.hpp/.cuh file");
  return files;
}

void check_packageable(const SolutionInfo& info) {
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(info.name, kIdentifier)) {
    throw UsageError("solution name '" + info.name + "' cannot be packaged: the binding receives it as a compile " +
                     "definition, so it must be a C identifier (letters, digits, underscores)");
  }
  if (info.author.empty()) throw UsageError("solution '" + info.name + "' has no author; SOL-ExecBench requires one");
}

std::vector<int> families_of(const SolutionInfo& info) {
  return info.target_compute_capabilities.empty() ? kAllFamilies : info.target_compute_capabilities;
}

// SOL-ExecBench's SupportedHardware has two values: B200, and LOCAL (the evaluator's own GPU) for anything else.
json target_hardware(const std::vector<int>& families) {
  json hardware = json::array();
  const bool blackwell = std::find(families.begin(), families.end(), 100) != families.end();
  const bool other = std::any_of(families.begin(), families.end(), [](int family) { return family != 100; });
  if (blackwell) hardware.push_back("B200");
  if (other) hardware.push_back("LOCAL");
  return hardware;
}

std::vector<std::string> dependencies_of(const std::set<std::string>& system_includes) {
  std::set<std::string> found;
  for (const std::string& include : system_includes) {
    if (include.rfind("cublas", 0) == 0) found.insert("cublas");
    if (include.rfind("cutlass/", 0) == 0 || include.rfind("cute/", 0) == 0) found.insert("cutlass");
    if (include.rfind("cudnn", 0) == 0) found.insert("cudnn");
  }
  return {found.begin(), found.end()};
}

// SolutionInfo::languages in SOL-ExecBench's vocabulary (cuda_cpp, cutlass, cublas, cudnn), plus the libraries found.
json languages_of(const SolutionInfo& info, const std::vector<std::string>& dependencies) {
  std::vector<std::string> languages;
  const auto add = [&](const std::string& language) {
    if (std::find(languages.begin(), languages.end(), language) == languages.end()) languages.push_back(language);
  };
  for (const std::string& language : info.languages) {
    if (language == "cuda" || language == "cpp" || language == "cuda_cpp") {
      add("cuda_cpp");
    } else if (language == "cutlass" || language == "cublas" || language == "cudnn") {
      add(language);
    } else {
      throw UsageError("solution '" + info.name + "' declares language '" + language +
                       "', which a SOL-ExecBench torch-binding package cannot carry (cuda, cutlass, cublas, cudnn)");
    }
  }
  if (languages.empty()) add("cuda_cpp");
  for (const std::string& dependency : dependencies) add(dependency);
  return languages;
}

json compile_options(const SolutionInfo& info, const std::vector<int>& families, const std::set<int>& built_families,
                     const std::vector<std::string>& dependencies) {
  // NDEBUG as in vlbench's Release build: without it CUTLASS's device-side asserts become calls that serialize
  // wgmma (ptxas warning C7510) and slow the kernels down.
  std::vector<std::string> definitions = {"-DNDEBUG", "-DVLBENCH_PACKAGED_SOLUTION=" + info.name};
  for (int family : built_families) definitions.push_back("-DVLBENCH_HAS_SM" + std::to_string(family) + "=1");

  std::vector<std::string> cflags = {"-std=c++20", "-O3"};
  // torch's extension builder disables the bf16/half operators and conversions; the harness builds with them.
  std::vector<std::string> cuda_cflags = {"-std=c++20",
                                          "-O3",
                                          "--expt-relaxed-constexpr",
                                          "-U__CUDA_NO_HALF_OPERATORS__",
                                          "-U__CUDA_NO_HALF_CONVERSIONS__",
                                          "-U__CUDA_NO_HALF2_OPERATORS__",
                                          "-U__CUDA_NO_BFLOAT16_CONVERSIONS__"};
  for (int family : families) {
    const std::string target = std::to_string(family) + "a";
    cuda_cflags.push_back("-gencode=arch=compute_" + target + ",code=sm_" + target);
  }
  cflags.insert(cflags.end(), definitions.begin(), definitions.end());
  cuda_cflags.insert(cuda_cflags.end(), definitions.begin(), definitions.end());

  std::vector<std::string> ld_flags = {"-lcuda"};  // SOL-ExecBench's default, kept since these flags replace it
  if (std::find(dependencies.begin(), dependencies.end(), "cublas") != dependencies.end()) {
    ld_flags.push_back("-lcublas");
    ld_flags.push_back("-lcublasLt");  // cuBLASLt's own entry points (cublasLtMatmul) are not in libcublas
  }
  return {{"cflags", cflags}, {"cuda_cflags", cuda_cflags}, {"ld_flags", ld_flags}};
}


bool is_translation_unit(const fs::path& path) { return is_source_file(path) && !is_header(path); }

// SOL-ExecBench's build step compiles only the .cu / .cpp files at the top level of the package folder (with that
// folder on the include path), so translation units are placed there, named after their project path
// (harness/core/errors.cpp -> harness_core_errors.cpp); headers keep their paths.
std::string top_level_name(const std::string& relative_path) {
  std::string name = relative_path;
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

// A translation unit moved to the top level would no longer find the headers beside its old place: those includes
// are rewritten to the headers' paths from the package root.
std::string with_root_includes(const std::string& content, const std::vector<std::pair<int, std::string>>& rewrites) {
  static const std::regex kQuotedInclude(R"re((^\s*#\s*include\s*)"[^"]+")re");
  std::istringstream lines(content);
  std::string result, text;
  for (int line = 1; std::getline(lines, text); ++line) {
    const auto rewrite = std::find_if(rewrites.begin(), rewrites.end(), [&](const auto& r) { return r.first == line; });
    if (rewrite != rewrites.end()) text = std::regex_replace(text, kQuotedInclude, "$1\"" + rewrite->second + "\"");
    result += text;
    if (!lines.eof()) result += '\n';
  }
  return result;
}

// The package's sources: {path in the package, content}, translation units at the top level.
std::map<std::string, std::string> package_layout(const SourceClosure& closure) {
  std::map<std::string, std::string> layout;
  std::map<std::string, std::string> origin_of;
  for (const auto& [path, content] : closure.files()) {
    if (!is_translation_unit(path)) {
      layout[path] = content;
      continue;
    }
    const std::string name = top_level_name(path);
    if (const auto [previous, inserted] = origin_of.emplace(name, path); !inserted) {
      throw InputError(path + " and " + previous->second + " would both be placed at the package's top level as " +
                       name + ": rename one of them");
    }
    const auto rewrites = closure.beside_includes().find(path);
    layout[name] = rewrites == closure.beside_includes().end() ? content : with_root_includes(content, rewrites->second);
  }
  for (const auto& [name, path] : origin_of) {
    if (closure.files().count(name) != 0 && name != path) {
      throw InputError(path + " would be placed at the package's top level as " + name + ", which another file of "
                       "the package already is: rename one of them");
    }
  }
  return layout;
}

}  // namespace

json make_solution_package(const SolutionInfo& info, const fs::path& source_root) {
  check_packageable(info);
  const std::vector<int> families = families_of(info);
  SourceClosure closure(source_root, families);
  closure.add(std::string(kBindingEntryFile));
  for (const std::string& file : solution_folder_files(source_root, info)) closure.add(file);
  reject_harness_only_calls(closure.files());
  reject_forbidden_stream_apis(closure.files());

  const std::vector<std::string> dependencies = dependencies_of(closure.system_includes());
  json sources = json::array();
  for (const auto& [path, content] : package_layout(closure)) sources.push_back({{"path", path}, {"content", content}});
  json spec = {{"languages", languages_of(info, dependencies)},
               {"target_hardware", target_hardware(families)},
               {"entry_point", top_level_name(std::string(kBindingEntryFile)) + "::" + std::string(kBindingEntrySymbol)},
               {"dependencies", dependencies},
               {"destination_passing_style", true},
               {"binding", "torch"},
               {"compile_options",
                compile_options(info, families, closure.per_architecture_families(), dependencies)}};
  return {{"name", info.name},
          {"definition", std::string(kDefinitionName)},
          {"author", info.author},
          {"description", info.description},
          {"spec", spec},
          {"sources", sources}};
}

namespace {

std::string package_error_prefix(const fs::path& path) { return "cannot write the package to " + path.string() + ": "; }

// The package must not land on a file it is made of (`-o solutions/template/template.cu`).
void refuse_output_over_sources(const fs::path& output, const fs::path& source_root, const SolutionInfo& info) {
  std::vector<NamedInput> sources;
  for (const std::string& file : solution_folder_files(source_root, info)) {
    sources.push_back({"a source file of the package", source_root / file});
  }
  sources.push_back({"a source file of the package", source_root / kBindingEntryFile});
  refuse_output_over_input(output, sources, package_error_prefix(output));
}

// The registry also holds vlbench's own GPU reference, which lives in reference/, not in a solution folder.
void refuse_builtin_reference(const std::string& name) {
  if (name != "reference") return;
  throw UsageError("solution 'reference' is vlbench's built-in GPU reference (reference/), not a solution folder under "
                   "solutions/, so it cannot be packaged: SOL-ExecBench's evaluator brings the definition's own "
                   "PyTorch reference (workloads/definition_reference.py); package a solution of solutions/, e.g. "
                   "vlbench package --solution template");
}

}  // namespace

std::optional<fs::path> write_solution_package(const fs::path& path, const json& package) {
  return write_output_file(path, dump_json(package, 2) + '\n', package_error_prefix(path));
}

PackagedSolution package_solution(const PackageRequest& request, const std::vector<SolutionInfo>& infos) {
  const auto info = std::find_if(infos.begin(), infos.end(), [&](const auto& i) { return i.name == request.solution; });
  if (info == infos.end()) {
    std::string known;
    for (const SolutionInfo& each : infos) known += (known.empty() ? "" : ", ") + each.name;
    throw UsageError("unknown solution '" + request.solution + "'; registered solutions: " + known +
                     " (see vlbench --list)");
  }
  refuse_builtin_reference(info->name);
  PackagedSolution written;
  written.path = request.output_path.empty() ? fs::path(request.solution + ".solution.json") : request.output_path;
  check_output_file(written.path, package_error_prefix(written.path));  // before the work, as every output
  const json package = make_solution_package(*info, request.source_root);
  refuse_output_over_sources(written.path, request.source_root, *info);
  written.kept = write_solution_package(written.path, package);
  written.source_files = package.at("sources").size();
  written.entry_point = package.at("spec").at("entry_point").get<std::string>();
  return written;
}

}  // namespace vlb
