// The helper processes vlbench starts (per-case workers, per-GPU device workers): exit statuses, logs, time limits,
// and no process left behind.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <algorithm>
#include <iterator>

#include "harness/core/errors.hpp"
#include "harness/isolation/child_process.hpp"
#include "support/scratch_folder.hpp"

namespace {

bool process_exists(pid_t pid) { return kill(pid, 0) == 0; }

}  // namespace

TEST_CASE("a child's exit code, its signal and its log come back", "[runner][process]") {
  const vlb::testing::ScratchFolder folder;
  const auto log = folder.file("child.log");
  vlb::ChildProcess exits(std::filesystem::path("/bin/sh"), {"sh", "-c", "echo first; echo; echo second >&2; exit 3"},
                          log);
  const auto status = exits.wait_for(30);
  REQUIRE(status.has_value());
  CHECK(vlb::describe_exit(*status) == "exited with code 3");
  CHECK(exits.poll() == status);  // the same status on every later call
  CHECK(vlb::last_lines(log, 3) == "first | second");  // stdout and stderr, empty lines left out
  CHECK(vlb::last_lines(log, 1) == "second");
  CHECK(vlb::last_lines(folder.file("missing.log"), 3).empty());

  vlb::ChildProcess killed("/bin/sh", {"sh", "-c", "echo dying; kill -9 $$"}, log);
  const auto killed_status = killed.wait_for(30);
  REQUIRE(killed_status.has_value());
  CHECK(vlb::describe_exit(*killed_status) == "was killed by signal 9 (Killed)");
  CHECK(vlb::last_lines(log, 3) == "dying");  // the log starts afresh for each child
}

TEST_CASE("poll never blocks; wait_for kills a child past its limit", "[runner][process]") {
  const vlb::testing::ScratchFolder folder;
  vlb::ChildProcess sleeper("/bin/sh", {"sh", "-c", "sleep 30"}, folder.file("sleeper.log"));
  const auto started = std::chrono::steady_clock::now();
  CHECK_FALSE(sleeper.poll().has_value());
  CHECK_FALSE(sleeper.wait_for(0.3).has_value());
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(waited >= 0.3);
  CHECK(waited < 10);
  REQUIRE(sleeper.poll().has_value());  // killed and reaped
  CHECK(vlb::describe_exit(*sleeper.poll()) == "was killed by signal 9 (Killed)");
}

TEST_CASE("a child still running when its owner goes is killed and reaped", "[runner][process]") {
  const vlb::testing::ScratchFolder folder;
  const auto pid_file = folder.file("pid");
  {
    vlb::ChildProcess orphan("/bin/sh", {"sh", "-c", "echo $$ > '" + pid_file.string() + "'; exec sleep 30"},
                             folder.file("orphan.log"));
    for (int i = 0; i < 500 && !(std::filesystem::exists(pid_file) && std::filesystem::file_size(pid_file) > 0); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const pid_t pid = std::stoi(vlb::testing::read_text(pid_file));
  CHECK_FALSE(process_exists(pid));  // reaped, so not even a zombie is left
}

TEST_CASE("a child that cannot start is a system error naming the program", "[runner][process]") {
  const vlb::testing::ScratchFolder folder;
  CHECK_THROWS_AS(vlb::ChildProcess("/nonexistent/vlbench", {"vlbench"}, folder.file("log")), vlb::SystemError);
  CHECK_THROWS_WITH(vlb::ChildProcess("/nonexistent/vlbench", {"vlbench"}, folder.file("log")),
                    Catch::Contains("/nonexistent/vlbench"));
}

TEST_CASE("a scratch folder is private and goes with its contents", "[runner][process]") {
  std::filesystem::path kept;
  {
    const vlb::ScratchDir scratch("test");
    kept = scratch.path();
    CHECK(kept.filename().string().starts_with("vlbench-test-"));
    std::filesystem::create_directory(kept / "inner");
    std::ofstream(kept / "inner" / "file") << "data";
    CHECK(std::filesystem::exists(kept / "inner" / "file"));
  }
  CHECK_FALSE(std::filesystem::exists(kept));
}

TEST_CASE("a child gets the descriptors it is given as 3, 4, ..., its own stdout, and /dev/null as stdin",
          "[isolation][process]") {
  const vlb::testing::ScratchFolder folder;
  int first[2], second[2];
  REQUIRE(pipe(first) == 0);
  REQUIRE(pipe(second) == 0);
  const auto log = folder.file("child.log"), output = folder.file("child.out");
  // Handed over in the opposite order of their numbers: neither may overwrite the other on the way.
  vlb::ChildProcess child(std::filesystem::path("/bin/sh"),
                          {"sh", "-c", "echo three >&3; echo four >&4; echo out; echo err >&2; cat"},
                          vlb::ChildOptions{log, output, {second[1], first[1]}});
  close(first[1]);
  close(second[1]);
  REQUIRE(child.wait_for(30).has_value());
  char buffer[16] = {};
  REQUIRE(read(second[0], buffer, sizeof(buffer) - 1) > 0);
  CHECK(std::string(buffer) == "three\n");
  std::fill(std::begin(buffer), std::end(buffer), '\0');
  REQUIRE(read(first[0], buffer, sizeof(buffer) - 1) > 0);
  CHECK(std::string(buffer) == "four\n");
  CHECK(vlb::testing::read_text(output) == "out\n");  // `cat` read an empty stdin
  CHECK(vlb::testing::read_text(log) == "err\n");
  close(first[0]);
  close(second[0]);
}
