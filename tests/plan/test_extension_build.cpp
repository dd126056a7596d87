// A C++ group package's build through the driver (plan/extension_build.hpp), with the stand-in torch of fake_torch/
// on PYTHONPATH: built once, then found in the cache by its key; a failed build gives the compiler's lines and keeps
// its log; the build cannot write outside its folder; a Python without torch cannot build (SKIPPED, not failed).
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <random>
#include <string>

#include "harness/isolation/sandbox.hpp"
#include "harness/plan/extension_build.hpp"
#include "support/scratch_folder.hpp"
#include "support/skip.hpp"

namespace vlb {
namespace {

const std::string kFakeTorch = std::string(VLBENCH_SOURCE_DIR) + "/tests/plan/fake_torch";

// A folder package of the C++ group whose binding carries `body`.
SolutionPackage cpp_package(const testing::ScratchFolder& folder, const std::string& name, const std::string& body) {
  folder.write(name + "/solution.json", R"({"name": ")" + name + R"(", "definition": "034_vision_language_cross_)"
                                            R"(attention_fusion", "author": "a", "spec": {"languages": ["cuda_cpp"], )"
                                            R"("target_hardware": ["LOCAL"], "entry_point": "binding.cu::run"}, )"
                                            R"("sources": [{"path": "binding.cu"}]})");
  folder.write(name + "/binding.cu", body);
  return read_solution_package(folder.path() / name);
}

std::string random_line() {
  std::mt19937_64 rng{std::random_device{}()};
  return "// " + std::to_string(rng()) + "\nint run() { return 0; }\n";
}

// The environment of these tests: the stand-in torch, the cache in the scratch folder.
struct BuildEnvironment {
  explicit BuildEnvironment(const testing::ScratchFolder& folder, const std::string& python_path = kFakeTorch) {
    setenv("PYTHONPATH", python_path.c_str(), 1);
    setenv("VLBENCH_CACHE_DIR", (folder.path() / "cache").c_str(), 1);
    unsetenv("VLBENCH_PYTHON");
    unsetenv("FAKE_TORCH_WRITE_OUTSIDE");
  }
  ~BuildEnvironment() {
    unsetenv("PYTHONPATH");
    unsetenv("VLBENCH_CACHE_DIR");
    unsetenv("FAKE_TORCH_WRITE_OUTSIDE");
  }
};

}  // namespace

TEST_CASE("a C++ package is built once, then found in the cache by its key", "[plan][extension]") {
  const testing::ScratchFolder folder;
  const BuildEnvironment environment(folder);
  const std::string body = random_line();
  const BuiltExtension first = build_extension(cpp_package(folder, "one", body), 90);
  CHECK_FALSE(first.cached);
  CHECK(first.module == folder.path() / "cache" / "extensions" / first.key / "benchmark_kernel.so");
  CHECK(std::filesystem::is_regular_file(first.module));
  CHECK_THAT(testing::read_text(first.module), Catch::Contains("binding.cu"));

  const BuiltExtension again = build_extension(cpp_package(folder, "two", body), 90);  // same sources, same flags
  CHECK(again.cached);
  CHECK(again.module == first.module);
  const BuiltExtension other = build_extension(cpp_package(folder, "three", body + "// changed\n"), 90);
  CHECK_FALSE(other.cached);
  CHECK(other.key != first.key);
  CHECK_FALSE(build_extension(cpp_package(folder, "four", body), 100).cached);  // another GPU, another build
}

TEST_CASE("a failed build gives the compiler's lines and keeps its whole log", "[plan][extension]") {
  const testing::ScratchFolder folder;
  const BuildEnvironment environment(folder);
  const SolutionPackage package = cpp_package(folder, "broken", random_line() + "#error no kernel yet\n");
  try {
    build_extension(package, 90);
    FAIL("the build of a source with #error succeeded");
  } catch (const BuildFailure& failure) {
    CHECK(failure.compiled());
    CHECK_THAT(failure.what(), Catch::Contains("broken did not build (exited with code 1)") &&
                                   Catch::Contains("error: #error no kernel yet") &&
                                   Catch::Contains("the whole log: " + failure.log().string()));
    CHECK_THAT(testing::read_text(failure.log()), Catch::Contains("the build failed"));
  }
}

TEST_CASE("the build writes in its own folder only", "[plan][extension]") {
  const testing::ScratchFolder folder;
  const BuildEnvironment environment(folder);
  if (sandbox_capabilities().landlock_abi == 0) VLB_SKIP("this kernel has no landlock: the build is not confined");
  const std::filesystem::path outside = folder.path() / "outside.txt";
  setenv("FAKE_TORCH_WRITE_OUTSIDE", outside.c_str(), 1);
  const BuiltExtension built = build_extension(cpp_package(folder, "escape", random_line()), 90);
  CHECK_FALSE(std::filesystem::exists(outside));
  CHECK_THAT(testing::read_text(built.module.parent_path() / "build.log"),
             Catch::Contains("writing outside was refused"));
}

TEST_CASE("a Python without torch cannot build: the reason, not a compile error", "[plan][extension]") {
  const testing::ScratchFolder folder;
  const BuildEnvironment environment(folder, folder.path().string());
  try {
    build_extension(cpp_package(folder, "no_torch", random_line()), 90);
    VLB_SKIP("python3 here has a torch of its own");
  } catch (const BuildFailure& failure) {
    CHECK_FALSE(failure.compiled());
    CHECK_THAT(failure.what(), Catch::Contains("has no torch") && Catch::Contains("VLBENCH_PYTHON"));
  }
}

}  // namespace vlb
