// Files vlbench writes where the user says: the path is tried before any work, an earlier file is kept as PATH.~N~,
// and an output that is one of the inputs is refused.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/output_file.hpp"
#include "harness/core/text_file.hpp"
#include "support/scratch_folder.hpp"

namespace vlb {
namespace {

namespace fs = std::filesystem;

std::string usage_error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const UsageError& error) {
    return error.message();
  }
  FAIL("expected a UsageError");
  return {};
}

std::size_t entries_in(const fs::path& folder) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

TEST_CASE("an output path is tried by creating a file in its folder, which is removed again", "[core][output]") {
  testing::ScratchFolder folder;
  REQUIRE_NOTHROW(check_output_file(folder.file("new.json"), "x: "));
  CHECK(entries_in(folder.path()) == 0);
  CHECK(usage_error_of([&] { check_output_file(folder.file("none/new.json"), "x: "); }) ==
        "x: folder " + folder.file("none").string() + " does not exist");
  CHECK(usage_error_of([&] { check_output_file(folder.path(), "x: "); }) == "x: it is an existing folder");
  CHECK(usage_error_of([&] { check_output_file(folder.path() / "", "x: "); }) ==
        "x: the path names a folder, not a file");
  // Folders that refuse new files even to root, for which access(2) says yes.
  CHECK_THAT(usage_error_of([] { check_output_file("/proc/x.json", "x: "); }),
             Catch::StartsWith("x: no file can be created in folder /proc: "));
  CHECK_THAT(usage_error_of([] { check_output_file("/sys/x.json", "x: "); }),
             Catch::StartsWith("x: no file can be created in folder /sys: "));
  CHECK(folder_write_problem(folder.path()).empty());
  CHECK(folder_write_problem(folder.file("none")) == "it is not a folder");
}

TEST_CASE("an earlier file is kept as PATH.~N~, never replaced", "[core][output]") {
  testing::ScratchFolder folder;
  const fs::path path = folder.file("run.json");
  CHECK_FALSE(write_output_file(path, "first", "x: ").has_value());
  CHECK(kept_file_path(path) == folder.file("run.json.~1~"));
  CHECK(write_output_file(path, "second", "x: ") == folder.file("run.json.~1~"));
  CHECK(write_output_file(path, "third", "x: ") == folder.file("run.json.~2~"));
  CHECK(read_text_file(path, "t") == "third");
  CHECK(read_text_file(folder.file("run.json.~1~"), "t") == "first");
  CHECK(read_text_file(folder.file("run.json.~2~"), "t") == "second");
  CHECK(entries_in(folder.path()) == 3);  // no temporary left

  CHECK(keep_existing_file(path) == folder.file("run.json.~3~"));
  CHECK_FALSE(fs::exists(path));
  CHECK_FALSE(keep_existing_file(path).has_value());
}

TEST_CASE("a write that fails leaves the earlier file in place", "[core][output]") {
  testing::ScratchFolder folder;
  const fs::path path = folder.write("run.json", "earlier");
  // The temporary's name is taken by a folder, so the write fails after the earlier file was linked aside.
  fs::create_directory(folder.file(".run.json.tmp"));
  CHECK_THROWS_AS(write_output_file(path, "new", "x: "), Error);
  CHECK(read_text_file(path, "t") == "earlier");
  CHECK_FALSE(fs::exists(folder.file("run.json.~1~")));
}

TEST_CASE("an output that is one of the inputs is refused, however it is spelt", "[core][output]") {
  testing::ScratchFolder folder;
  const fs::path input = folder.write("in.json", "{}");
  fs::create_symlink(input, folder.file("link.json"));
  const std::vector<NamedInput> inputs = {{"the results file it reads", input}};
  for (const fs::path& output : {input, folder.path() / "." / "in.json", folder.file("link.json")}) {
    CAPTURE(output);
    CHECK_THAT(usage_error_of([&] { refuse_output_over_input(output, inputs, "x: "); }),
               Catch::StartsWith("x: it is also the results file it reads (" + input.string() + ")"));
  }
  CHECK_NOTHROW(refuse_output_over_input(folder.file("out.json"), inputs, "x: "));
  CHECK(same_file(folder.file("sub/../new.json"), folder.file("new.json")));  // neither exists yet
  CHECK_FALSE(same_file(folder.file("a.json"), folder.file("b.json")));
  CHECK(::access(input.c_str(), R_OK) == 0);
}

}  // namespace
}  // namespace vlb
