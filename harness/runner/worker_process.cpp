#include "harness/runner/worker_process.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "harness/core/errors.hpp"

extern char** environ;

namespace vlb {
namespace {

// A temporary folder for one worker's result and log, removed when done.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vlbench-worker-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw SystemError(fmt::format("cannot create a temporary folder for a worker: {}", std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string last_lines(const std::filesystem::path& log, int count) {
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  const std::size_t first = lines.size() > static_cast<std::size_t>(count) ? lines.size() - count : 0;
  std::string text;
  for (std::size_t i = first; i < lines.size(); ++i) text += (text.empty() ? "" : " | ") + lines[i];
  return text;
}

pid_t spawn_worker(const std::vector<std::string>& arguments, const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int status = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (status != 0) throw SystemError(fmt::format("cannot start a worker process: {}", std::strerror(status)));
  return pid;
}

// Waits for the worker, calling `while_waiting` between polls; kills it at the deadline. Returns the wait status, or
// nullopt on timeout.
std::optional<int> wait_with_deadline(pid_t pid, double timeout_s, const std::function<void()>& while_waiting) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0) throw SystemError(fmt::format("waiting for a worker failed: {}", std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return std::nullopt;
    }
    if (while_waiting) while_waiting();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return fmt::format("the worker died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("the worker exited with code {} without a result", WEXITSTATUS(status));
}

}  // namespace

WorkerOutcome run_in_worker(const WorkerTask& task, const CallProgress& on_progress) {
  const ScratchDir scratch;
  const auto log_path = scratch.path() / "worker.log";
  write_worker_task(scratch.path(), task);
  const pid_t pid = spawn_worker({"vlbench", "--worker", scratch.path().string()}, log_path);
  std::function<void()> report_progress;
  if (on_progress) {
    report_progress = [&] {
      if (const std::optional<int> calls_done = read_progress(scratch.path())) on_progress(*calls_done);
    };
  }
  const std::optional<int> status = wait_with_deadline(pid, task.plan.case_timeout_s, report_progress);

  WorkerOutcome outcome;
  if (!status) {
    outcome.failure_status = CaseStatus::kTimeout;
    outcome.failure_reason =
        fmt::format("the case ran past its {:.0f} s limit and its worker was killed", task.plan.case_timeout_s);
    return outcome;
  }
  outcome.run = read_worker_outcome(scratch.path());
  if (outcome.run) return outcome;
  outcome.failure_status = CaseStatus::kRuntimeError;
  const std::string tail = last_lines(log_path, 3);
  outcome.failure_reason = tail.empty() ? describe_exit(*status) : fmt::format("{}: {}", describe_exit(*status), tail);
  return outcome;
}

}  // namespace vlb
