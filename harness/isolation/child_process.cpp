#include "harness/isolation/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "harness/core/errors.hpp"

extern char** environ;

namespace vlb {

ScratchDir::ScratchDir(const std::string& purpose) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("vlbench-" + purpose + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw SystemError(fmt::format("cannot create a temporary folder for a {}: {}", purpose, std::strerror(errno)));
  }
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path own_executable() { return "/proc/self/exe"; }

ChildProcess::ChildProcess(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
                           const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  const int error = posix_spawn(&pid_, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    throw SystemError(fmt::format("cannot start {}: {}", executable.string(), std::strerror(error)));
  }
}

ChildProcess::~ChildProcess() { kill(); }

std::optional<int> ChildProcess::poll() {
  if (status_) return status_;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done < 0) throw SystemError(fmt::format("waiting for process {} failed: {}", pid_, std::strerror(errno)));
  if (done == pid_) status_ = status;
  return status_;
}

std::optional<int> ChildProcess::wait_for(double timeout_s, const std::function<void()>& while_waiting) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::milliseconds(1);
  while (!poll()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill();
      return std::nullopt;
    }
    if (while_waiting) while_waiting();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return status_;
}

void ChildProcess::kill() {
  if (status_) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  if (waitpid(pid_, &status, 0) == pid_) status_ = status;
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    return fmt::format("was killed by signal {} ({})", WTERMSIG(wait_status), strsignal(WTERMSIG(wait_status)));
  }
  return fmt::format("exited with code {}", WEXITSTATUS(wait_status));
}

bool exited_normally(int wait_status, int code) {
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == code;
}

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

}  // namespace vlb
