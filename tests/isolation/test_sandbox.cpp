// The worker's sandbox, entered by a child process as the worker enters it: what it still may do (read, write its
// scratch folder, its own /proc) and what it may not (write elsewhere, other processes' /proc, signal its parent,
// sockets and ptrace, the last two stopping it with a message naming the call).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "harness/isolation/channel.hpp"
#include "harness/isolation/sandbox.hpp"
#include "support/scratch_folder.hpp"
#include "support/skip.hpp"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string reported;  // what the sandbox sent on the report socket, if anything
};

// Runs `attempt` in a sandboxed child; the child exits 0 when the attempt succeeded, 10 when it was refused with
// EACCES or EPERM, 11 on any other error.
Outcome in_sandbox(const std::filesystem::path& scratch, const std::function<int()>& attempt,
                   const std::filesystem::path& shared = {}) {
  auto [judge, worker] = vlb::Channel::create_pair();
  const pid_t pid = fork();
  if (pid == 0) {
    vlb::enter_sandbox({scratch, shared, worker.fd()});
    const int result = attempt();
    _exit(result == 0 ? 0 : (errno == EACCES || errno == EPERM) ? 10 : 11);
  }
  { vlb::Channel closed = std::move(worker); }
  int status = 0;
  waitpid(pid, &status, 0);
  Outcome outcome;
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  if (judge.readable()) {
    try {
      if (auto message = judge.receive(std::chrono::steady_clock::now() + std::chrono::seconds(1))) {
        outcome.reported = message->body.dump();
      }
    } catch (const vlb::ChannelClosed&) {
    }
  }
  return outcome;
}

int open_for(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

}  // namespace

TEST_CASE("inside the sandbox: reads and the scratch folder yes; other files, other processes and sockets no",
          "[isolation][sandbox]") {
  const vlb::SandboxReport capabilities = vlb::sandbox_capabilities();
  if (capabilities.landlock_abi < 6 || !capabilities.seccomp) {
    VLB_SKIP("this kernel lacks landlock ABI 6 or seccomp filters: " + vlb::describe_sandbox(capabilities));
  }
  const vlb::testing::ScratchFolder folder;
  const auto scratch = folder.path() / "scratch";
  std::filesystem::create_directory(scratch);
  const std::string parent = std::to_string(getpid());

  CHECK(in_sandbox(scratch, [&] { return open_for((scratch / "mine").string(), O_WRONLY | O_CREAT); }).exit_code == 0);
  CHECK(in_sandbox(scratch, [&] { return open_for("/etc/passwd", O_RDONLY); }).exit_code == 0);
  CHECK(in_sandbox(scratch, [&] { return open_for("/proc/self/status", O_RDONLY); }).exit_code == 0);

  CHECK(in_sandbox(scratch, [&] { return open_for((folder.path() / "outside").string(), O_WRONLY | O_CREAT); }).exit_code == 10);
  CHECK_FALSE(std::filesystem::exists(folder.path() / "outside"));
  // A Python package's shared cache folder: writable when the policy names it, and only then.
  const auto shared = folder.path() / "shared";
  std::filesystem::create_directory(shared);
  CHECK(in_sandbox(scratch, [&] { return open_for((shared / "kernel").string(), O_WRONLY | O_CREAT); }).exit_code == 10);
  CHECK(in_sandbox(scratch, [&] { return open_for((shared / "kernel").string(), O_WRONLY | O_CREAT); }, shared)
            .exit_code == 0);
  CHECK(std::filesystem::exists(shared / "kernel"));
  CHECK(in_sandbox(scratch, [&] { return open_for("/proc/" + parent + "/status", O_RDONLY); }).exit_code == 10);
  CHECK(in_sandbox(scratch, [&] { return open_for("/proc/" + parent + "/mem", O_RDONLY); }).exit_code == 10);
  CHECK(in_sandbox(scratch, [&] { return kill(getppid(), 0); }).exit_code == 10);
  // A UNIX socket fails with EACCES and the child goes on (libraries fall back); nothing is reported.
  const Outcome unix_socket = in_sandbox(scratch, [&] { return socket(AF_UNIX, SOCK_STREAM, 0) < 0 ? -1 : 0; });
  CHECK(unix_socket.exit_code == 10);
  CHECK(unix_socket.reported.empty());

  // ptrace and socket stop the child at once, with the call named on the report socket.
  for (const char* call : {"ptrace", "socket"}) {
    INFO(call);
    const Outcome refused = in_sandbox(scratch, [&] {
      return std::string(call) == "ptrace" ? static_cast<int>(ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr))
                                           : socket(AF_INET, SOCK_STREAM, 0);
    });
    CHECK(refused.exit_code == vlb::kSandboxRefusalExitCode);
    CHECK_THAT(refused.reported, Catch::Contains("refused") && Catch::Contains(call));
  }
}

TEST_CASE("the sandbox's description says what held and what the kernel lacks", "[isolation][sandbox]") {
  vlb::SandboxReport report;
  report.landlock_abi = 4;
  report.seccomp = true;
  report.missing = {"landlock ABI < 6: signals are limited by seccomp (this process only)"};
  CHECK(vlb::describe_sandbox(report) ==
        "landlock ABI 4, seccomp (missing: landlock ABI < 6: signals are limited by seccomp (this process only))");
  CHECK(vlb::describe_sandbox({}) == "no landlock, no seccomp");
}
