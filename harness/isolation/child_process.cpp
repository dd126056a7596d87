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
#include <cstdlib>

#include "harness/core/errors.hpp"
#include "harness/isolation/unique_fd.hpp"

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

std::filesystem::path worker_executable() {
  if (const char* chosen = std::getenv("VLBENCH_WORKER"); chosen != nullptr && *chosen != '\0') return chosen;
  std::error_code ignored;
  const std::filesystem::path beside = std::filesystem::read_symlink(own_executable(), ignored).parent_path() / "vlbench-worker";
  if (std::filesystem::is_regular_file(beside, ignored)) return beside;
#ifdef VLBENCH_BUILD_DIR
  const std::filesystem::path built = std::filesystem::path(VLBENCH_BUILD_DIR) / "vlbench-worker";
  if (std::filesystem::is_regular_file(built, ignored)) return built;
#endif
  throw SystemError(fmt::format("cannot find vlbench-worker (looked beside {} and in the build folder; set "
                                "VLBENCH_WORKER to its path)", beside.parent_path().string()));
}

ChildProcess::ChildProcess(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
                           const std::filesystem::path& log)
    : ChildProcess(executable, arguments, ChildOptions{log, std::nullopt, {}}) {}

ChildProcess::ChildProcess(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
                           const ChildOptions& options) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  constexpr int kOpenFlags = O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);  // nothing of ours to read
  if (options.output) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.output->c_str(), kOpenFlags, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, options.log.c_str(), kOpenFlags, 0644);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options.log.c_str(), kOpenFlags, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  // Staged above any target first, so that no dup2 onto 3, 4, ... overwrites a descriptor still to be copied; dup2
  // clears close-on-exec on the copies, and the staged ones close at exec.
  std::vector<UniqueFd> staged;
  for (const int fd : options.inherited_fds) {
    staged.emplace_back(fcntl(fd, F_DUPFD_CLOEXEC, 64));
    if (!staged.back().valid()) throw SystemError(fmt::format("cannot pass a descriptor on: {}", std::strerror(errno)));
  }
  for (std::size_t i = 0; i < staged.size(); ++i) {
    posix_spawn_file_actions_adddup2(&actions, staged[i].get(), 3 + static_cast<int>(i));
  }
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

std::string last_lines(const std::filesystem::path& log, int count, const std::string& separator) {
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  const std::size_t first = lines.size() > static_cast<std::size_t>(count) ? lines.size() - count : 0;
  std::string text;
  for (std::size_t i = first; i < lines.size(); ++i) text += (text.empty() ? "" : separator) + lines[i];
  return text;
}

}  // namespace vlb
