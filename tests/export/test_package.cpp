// `vlbench package`: the template's solution.json against SOL-ExecBench's Solution schema, the include closure of
// its sources, and the failures a package must report (missing folder, bad include, unavailable library).
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

#include "export/support_export.hpp"
#include "harness/core/errors.hpp"
#include "harness/export/package.hpp"

namespace vlb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceRoot = VLBENCH_SOURCE_DIR;

// As solutions/template/template_solution.cu describes itself.
SolutionInfo template_info() {
  return {.name = "template",
          .author = "vlbench",
          .description = "Start here: cuBLAS projections, a RoPE kernel and a warp-per-row attention kernel",
          .languages = {"cuda"},
          .target_compute_capabilities = {}};
}

void require_string_array(const json& value, bool non_empty) {
  REQUIRE(value.is_array());
  if (non_empty) REQUIRE_FALSE(value.empty());
  for (const json& item : value) {
    REQUIRE(item.is_string());
    REQUIRE_FALSE(item.get<std::string>().empty());
  }
}

// SOL-ExecBench's Solution / BuildSpec / SourceFile / CompileOptions rules (core/data/solution.py).
void require_valid_solution(const json& package) {
  REQUIRE(package.is_object());
  for (const char* key : {"name", "definition", "author"}) {
    REQUIRE(package.at(key).is_string());
    REQUIRE_FALSE(package.at(key).get<std::string>().empty());
  }
  REQUIRE(package.at("definition") == "034_vision_language_cross_attention_fusion");
  REQUIRE(package.at("description").is_string());
  REQUIRE(package.size() == 6);

  const json& spec = package.at("spec");
  static const std::set<std::string> kCppLanguages = {"cutlass", "cudnn", "cublas", "cuda_cpp"};
  require_string_array(spec.at("languages"), true);
  for (const json& language : spec.at("languages")) REQUIRE(kCppLanguages.count(language.get<std::string>()) == 1);
  require_string_array(spec.at("target_hardware"), true);
  for (const json& hardware : spec.at("target_hardware")) REQUIRE((hardware == "B200" || hardware == "LOCAL"));
  require_string_array(spec.at("dependencies"), false);
  REQUIRE(spec.at("destination_passing_style") == true);
  REQUIRE(spec.at("binding") == "torch");
  const std::string entry_point = spec.at("entry_point").get<std::string>();
  const std::size_t separator = entry_point.find("::");
  REQUIRE(separator != std::string::npos);
  REQUIRE(entry_point.find("::", separator + 1) == std::string::npos);
  const std::string entry_file = entry_point.substr(0, separator);
  REQUIRE(entry_point.substr(separator + 2) == "run");
  const std::string suffix = fs::path(entry_file).extension().string();
  REQUIRE((suffix == ".cpp" || suffix == ".cu"));
  const json& options = spec.at("compile_options");
  REQUIRE(options.size() == 3);
  for (const char* key : {"cflags", "cuda_cflags", "ld_flags"}) require_string_array(options.at(key), false);

  const json& sources = package.at("sources");
  REQUIRE(sources.is_array());
  REQUIRE_FALSE(sources.empty());
  std::set<std::string> paths;
  for (const json& source : sources) {
    REQUIRE(source.size() == 2);
    const std::string path = source.at("path").get<std::string>();
    INFO("source " << path);
    REQUIRE_FALSE(path.empty());
    REQUIRE_FALSE(fs::path(path).is_absolute());
    for (const fs::path& part : fs::path(path)) REQUIRE(part != "..");
    REQUIRE_FALSE(source.at("content").get<std::string>().empty());
    REQUIRE(paths.insert(path).second);  // unique
  }
  REQUIRE(paths.count(entry_file) == 1);
  // SOL-ExecBench's build step compiles only the translation units at the top level of the package folder.
  for (const std::string& path : paths) {
    const std::string extension = fs::path(path).extension().string();
    if (extension == ".cu" || extension == ".cpp" || extension == ".cc") REQUIRE(path.find('/') == std::string::npos);
  }
}

// A project translation unit's name at the package's top level (harness/core/errors.cpp -> harness_core_errors.cpp).
std::string top_level(std::string path) {
  std::replace(path.begin(), path.end(), '/', '_');
  return path;
}

std::map<std::string, std::string> sources_of(const json& package) {
  std::map<std::string, std::string> files;
  for (const json& source : package.at("sources")) files[source.at("path")] = source.at("content");
  return files;
}

bool has_flag(const json& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), json(flag)) != flags.end();
}

// Every #include of every packaged file: "..." resolves beside the file or from the package root to a packaged
// file; <...> never names a library the evaluator lacks.
void require_closed(const std::map<std::string, std::string>& files) {
  const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  for (const auto& [path, content] : files) {
    std::istringstream lines(content);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      std::smatch match;
      if (!std::regex_search(line, match, include)) continue;
      const std::string target = match[2];
      INFO(path << ":" << number << " includes " << target);
      REQUIRE(target.rfind("fmt/", 0) != 0);
      REQUIRE(target.rfind("nlohmann/", 0) != 0);
      if (match[1] != "\"") continue;
      const std::string beside = (fs::path(path).parent_path() / target).lexically_normal().generic_string();
      const std::string from_root = fs::path(target).lexically_normal().generic_string();
      REQUIRE((files.count(beside) == 1 || files.count(from_root) == 1));
    }
  }
}

TEST_CASE("the template's package validates against SOL-ExecBench's solution schema", "[export][package]") {
  const json package = make_solution_package(template_info(), kSourceRoot);
  require_valid_solution(package);
  REQUIRE(package.at("name") == "template");
  REQUIRE(package.at("author") == "vlbench");
  const json& spec = package.at("spec");
  REQUIRE(spec.at("entry_point") == "harness_export_torch_binding.cpp::run");
  REQUIRE(spec.at("target_hardware") == json{"B200", "LOCAL"});  // no target list: every family
  REQUIRE(spec.at("dependencies") == json{"cublas"});              // template_solution.cu includes <cublas_v2.h>
  REQUIRE(spec.at("languages") == json{"cuda_cpp", "cublas"});

  const json& options = spec.at("compile_options");
  for (const char* key : {"cflags", "cuda_cflags"}) {
    REQUIRE(has_flag(options.at(key), "-std=c++20"));
    REQUIRE(has_flag(options.at(key), "-DVLBENCH_PACKAGED_SOLUTION=template"));
    REQUIRE(has_flag(options.at(key), "-DNDEBUG"));  // as the Release build: CUTLASS's device asserts compiled out
  }
  REQUIRE(has_flag(options.at("cuda_cflags"), "-gencode=arch=compute_90a,code=sm_90a"));
  REQUIRE(has_flag(options.at("cuda_cflags"), "-gencode=arch=compute_100a,code=sm_100a"));
  REQUIRE(has_flag(options.at("cuda_cflags"), "--expt-relaxed-constexpr"));
  REQUIRE(has_flag(options.at("ld_flags"), "-lcublas"));
}

TEST_CASE("the template's package holds its folder, the binding and the closure of what they include",
          "[export][package]") {
  const std::map<std::string, std::string> files = sources_of(make_solution_package(template_info(), kSourceRoot));
  const std::vector<std::string> units = {"harness/export/torch_binding.cpp", "solutions/template/template_solution.cu",
                                          "harness/solution/registry.cpp", "harness/core/errors.cpp",
                                          "harness/core/cuda_check.cpp", "harness/core/problem.cpp"};
  const std::vector<std::string> headers = {"harness/solution/registry.hpp", "harness/solution/solution.hpp",
                                            "harness/core/errors.hpp", "harness/core/cuda_check.hpp",
                                            "harness/core/problem.hpp", "harness/core/device_info.hpp"};
  for (const std::string& unit : units) {
    INFO("expected " << unit << " as " << top_level(unit));
    REQUIRE(files.count(top_level(unit)) == 1);
    // Their includes already name headers from the root, so they travel unchanged.
    REQUIRE(files.at(top_level(unit)) == testing::read_text(kSourceRoot / unit));
  }
  for (const std::string& header : headers) {
    INFO("expected " << header);
    REQUIRE(files.count(header) == 1);
  }
  // The harness's device query needs fmt and only the harness calls it.
  REQUIRE(files.count(top_level("harness/core/device_info.cpp")) == 0);
  require_closed(files);
  for (const auto& [path, content] : files) {
    INFO(path);
    if (path.find('/') == std::string::npos) continue;  // a translation unit, checked above
    REQUIRE(fs::is_regular_file(kSourceRoot / path));  // a project header, at its path from the project root
    REQUIRE(content == testing::read_text(kSourceRoot / path));
  }
  REQUIRE(files.size() == units.size() + std::count_if(files.begin(), files.end(), [](const auto& file) {
            return file.first.find('/') != std::string::npos;
          }));
  // No reference, judge, worker, CLI or test code rides along.
  for (const auto& [path, content] : files) {
    REQUIRE(path.rfind("reference/", 0) != 0);
    REQUIRE(path.rfind("harness/judge/", 0) != 0);
    REQUIRE(path.rfind("harness/worker/", 0) != 0);
    REQUIRE(path.rfind("tests/", 0) != 0);
  }
}

TEST_CASE("the package file reads back as the same package", "[export][package][io]") {
  const json package = make_solution_package(template_info(), kSourceRoot);
  testing::ScratchFolder scratch;
  const fs::path path = scratch.path() / "template.solution.json";
  write_solution_package(path, package);
  REQUIRE(json::parse(testing::read_text(path)) == package);
  REQUIRE(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator()) == 1);
  REQUIRE_THROWS_AS(write_solution_package(scratch.path() / "no" / "x.json", package), UsageError);
}

// A small project tree in a scratch folder, to drive the packager through its rules.
struct FakeProject {
  testing::ScratchFolder scratch;
  fs::path root() const { return scratch.file("project"); }
  void file(const std::string& path, const std::string& text) const { scratch.write("project/" + path, text); }
  FakeProject() {
    file("harness/export/torch_binding.cpp", "#include <torch/extension.h>\n#include \"harness/api.hpp\"\n");
    file("harness/api.hpp", "#pragma once\nint api();\n");
    file("harness/api.cpp", "#include \"harness/api.hpp\"\nint api() { return 7; }\n");
  }
};

SolutionInfo fake_info(std::vector<int> targets) {
  return {.name = "fake", .author = "tester", .description = "d", .languages = {"cuda"},
          .target_compute_capabilities = std::move(targets)};
}

template <class Exception>
void require_error(const SolutionInfo& info, const fs::path& root, const std::string& expected) {
  try {
    (void)make_solution_package(info, root);
  } catch (const Exception& error) {
    INFO("message: " << error.what());
    REQUIRE_THAT(error.what(), Catch::Contains(expected));
    return;
  }
  FAIL("expected an error containing " << expected);
}

TEST_CASE("per-architecture files follow the target families, and the sibling implementation comes along",
          "[export][package]") {
  FakeProject project;
  project.file("solutions/fake/kernel.hpp", "#pragma once\n#include <cute/tensor.hpp>\n");
  project.file("solutions/fake/kernel_sm90.cu", "#include \"kernel.hpp\"\n");
  project.file("solutions/fake/kernel_sm100.cu",
               "#include \"solutions/fake/kernel.hpp\"\n#include \"../../harness/api.hpp\"\n");
  project.file("solutions/fake/notes.txt", "not a source");

  const json blackwell = make_solution_package(fake_info({100}), project.root());
  require_valid_solution(blackwell);
  const std::map<std::string, std::string> files = sources_of(blackwell);
  REQUIRE(files.count("solutions_fake_kernel_sm100.cu") == 1);
  REQUIRE(files.count("solutions_fake_kernel_sm90.cu") == 0);
  REQUIRE(files.count("solutions/fake/notes.txt") == 0);
  REQUIRE(files.count("harness_api.cpp") == 1);  // beside a packaged header
  REQUIRE(files.count("solutions/fake/kernel.hpp") == 1);  // headers keep their place
  // Moved to the top level, a translation unit names the headers it found beside itself from the package root.
  REQUIRE(files.at("solutions_fake_kernel_sm100.cu") ==
          "#include \"solutions/fake/kernel.hpp\"\n#include \"harness/api.hpp\"\n");
  require_closed(files);
  const json& spec = blackwell.at("spec");
  REQUIRE(spec.at("target_hardware") == json{"B200"});
  REQUIRE(spec.at("dependencies") == json{"cutlass"});
  REQUIRE(has_flag(spec.at("compile_options").at("cuda_cflags"), "-DVLBENCH_HAS_SM100=1"));
  REQUIRE_FALSE(has_flag(spec.at("compile_options").at("cuda_cflags"), "-DVLBENCH_HAS_SM90=1"));
  REQUIRE_FALSE(has_flag(spec.at("compile_options").at("cuda_cflags"), "-gencode=arch=compute_90a,code=sm_90a"));

  const json hopper = make_solution_package(fake_info({90}), project.root());
  REQUIRE(sources_of(hopper).at("solutions_fake_kernel_sm90.cu") == "#include \"solutions/fake/kernel.hpp\"\n");
  REQUIRE(sources_of(hopper).count("solutions_fake_kernel_sm100.cu") == 0);
  REQUIRE(hopper.at("spec").at("target_hardware") == json{"LOCAL"});
}

TEST_CASE("a package fails on what the evaluator could not build", "[export][package]") {
  FakeProject project;
  SECTION("no solution folder") { require_error<UsageError>(fake_info({}), project.root(), "has no folder"); }
  SECTION("a name that is not an identifier") {
    SolutionInfo info = fake_info({});
    info.name = "my-solution";
    require_error<UsageError>(info, project.root(), "C identifier");
  }
  SECTION("an include that resolves nowhere") {
    project.file("solutions/fake/a.cu", "// first line\n#include \"missing/header.hpp\"\n");
    require_error<InputError>(fake_info({}), project.root(), "solutions/fake/a.cu:2 includes \"missing/header.hpp\"");
  }
  SECTION("an include that leaves the project") {
    project.file("solutions/fake/a.cu", "#include \"../../../outside.hpp\"\n");
    project.scratch.write("outside.hpp", "#pragma once\n");  // exists, but outside the root
    require_error<InputError>(fake_info({}), project.root(), "includes \"../../../outside.hpp\"");
  }
  SECTION("a library the evaluator lacks") {
    project.file("solutions/fake/a.cu", "#include <fmt/format.h>\n");
    require_error<InputError>(fake_info({}), project.root(), "solutions/fake/a.cu:1 includes <fmt/format.h>");
  }
  SECTION("a call into the harness-only device query") {
    project.file("harness/core/device_info.hpp", "#pragma once\nint device_count();\n");
    project.file("harness/core/device_info.cpp", "#include \"harness/core/device_info.hpp\"\n");
    project.file("solutions/fake/a.cu", "#include \"harness/core/device_info.hpp\"\nint n = device_count ();\n");
    require_error<InputError>(fake_info({}), project.root(), "solutions/fake/a.cu calls device_count()");
  }
  SECTION("two translation units that would share a top-level name") {
    project.file("solutions/fake/x.cu", "#include \"solutions/fake_x.hpp\"\n");
    project.file("solutions/fake_x.hpp", "#pragma once\n");
    project.file("solutions/fake_x.cu", "#include \"solutions/fake_x.hpp\"\n");
    require_error<InputError>(fake_info({}), project.root(), "solutions_fake_x.cu");
  }
  SECTION("a stream API that SOL-ExecBench forbids") {
    project.file("solutions/fake/a.cu", "// side work\nvoid f() { cudaStream_t s; cudastreamcreate(&s); }\n");
    require_error<InputError>(fake_info({}), project.root(), "solutions/fake/a.cu:2 uses cudastreamcreate");
  }
  SECTION("an empty source file") {
    project.file("solutions/fake/a.cu", "");
    require_error<InputError>(fake_info({}), project.root(), "solutions/fake/a.cu is empty");
  }
}

// fused_b200 as its fused_b200_solution.cpp describes itself (this test links no solution).
SolutionInfo fused_b200_info() {
  return {.name = "fused_b200", .author = "vlbench", .description = "d", .languages = {"cuda"},
          .target_compute_capabilities = {90, 100}};
}

TEST_CASE("fused_b200 packages with its kernels for both families", "[export][package]") {
  const json package = make_solution_package(fused_b200_info(), kSourceRoot);
  require_valid_solution(package);
  const std::map<std::string, std::string> files = sources_of(package);
  for (const char* unit : {"solutions/fused_b200/fused_operation.cpp",
                           "solutions/fused_b200/fused_b200_solution.cpp", "solutions/fused_b200/attention_sm90.cu",
                           "solutions/fused_b200/attention_sm100.cu", "harness/export/torch_binding.cpp"}) {
    INFO("expected " << unit);
    REQUIRE(files.count(top_level(unit)) == 1);
  }
  require_closed(files);
  const json& spec = package.at("spec");
  REQUIRE(spec.at("target_hardware") == json{"B200", "LOCAL"});
  REQUIRE(spec.at("dependencies") == json{"cublas", "cutlass"});
  for (const char* flag : {"-DVLBENCH_HAS_SM90=1", "-DVLBENCH_HAS_SM100=1", "-DNDEBUG"}) {
    REQUIRE(has_flag(spec.at("compile_options").at("cuda_cflags"), flag));
  }
}

}  // namespace
}  // namespace vlb

namespace vlb {
namespace {

TEST_CASE("packaging an unregistered solution is a usage error that writes nothing", "[export][package]") {
  testing::ScratchFolder scratch;
  const PackageRequest request{"no_such_solution", std::filesystem::path(VLBENCH_SOURCE_DIR),
                               scratch.path() / "x.solution.json"};
  const std::vector<SolutionInfo> known = {template_info()};
  REQUIRE_THROWS_AS(package_solution(request, known), UsageError);
  REQUIRE_THROWS_WITH(package_solution(request, known), Catch::Contains("unknown solution 'no_such_solution'"));
  REQUIRE_FALSE(std::filesystem::exists(request.output_path));
}

}  // namespace
}  // namespace vlb
