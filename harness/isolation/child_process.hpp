#pragma once
// vlbench's own helper processes: a case's worker (vlbench-worker, worker_process.hpp), the describer of the solution
// modules, and a per-GPU device worker (device_fanout.hpp) are all started, watched and reaped through these.
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace vlb {

// A fresh folder under the system's temporary folder (`vlbench-<purpose>-XXXXXX`), removed with its contents when
// the object goes. Throws SystemError when it cannot be made.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& purpose);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The running vlbench executable: how vlbench starts copies of itself.
std::filesystem::path own_executable();
// The worker executable (vlbench-worker): $VLBENCH_WORKER, else beside this executable, else in the build that made
// this one (a test executable's case). SystemError naming the places looked at when there is none.
std::filesystem::path worker_executable();

// Where a child's output goes, and which descriptors it inherits.
struct ChildOptions {
  std::filesystem::path log;                    // stdout and stderr, or stderr alone when `output` is set
  std::optional<std::filesystem::path> output;  // stdout alone
  std::vector<int> inherited_fds;               // become descriptors 3, 4, ... in the child, in this order
};

// A started process whose stdout and stderr go to a log file. A child still running when the object goes is killed
// and reaped, so that no error path leaves one behind.
class ChildProcess {
 public:
  // `arguments` starts with the program name (argv[0]). Throws SystemError when the process cannot be started.
  ChildProcess(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
               const std::filesystem::path& log);
  ChildProcess(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
               const ChildOptions& options);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // The wait status once the process has exited (never blocks); the same status on every later call.
  std::optional<int> poll();
  // Waits up to `timeout_s`, calling `while_waiting` (if any) between polls; past it the process is killed and
  // nullopt returned.
  std::optional<int> wait_for(double timeout_s, const std::function<void()>& while_waiting = {});
  // Kills the process unless it has exited, and reaps it.
  void kill();
  pid_t pid() const { return pid_; }

 private:

  pid_t pid_ = -1;
  std::optional<int> status_;
};

// "exited with code 3", "was killed by signal 9 (Killed)".
std::string describe_exit(int wait_status);
bool exited_normally(int wait_status, int code);  // exited (not by a signal) with this code
// The last `count` non-empty lines of a log, joined by `separator` (empty when there are none).
std::string last_lines(const std::filesystem::path& log, int count, const std::string& separator = " | ");

}  // namespace vlb
