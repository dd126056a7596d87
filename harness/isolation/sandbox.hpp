#pragma once
// The worker's sandbox, entered after CUDA is initialised and before any solution code runs: what an unprivileged
// process can still be kept from, with the kernel's own mechanisms.
// - Landlock (files): read and execute anywhere but /proc; in /proc, only the worker's own entries and the entries
//   that are no process's (/proc/cpuinfo, /proc/driver, ...); write only in a private scratch folder and to the GPU's
//   device files. From ABI 4 no TCP bind or connect; from ABI 6 no signals to processes outside the sandbox and no
//   abstract UNIX sockets. Landlock also refuses ptrace of any process outside the sandbox.
// - seccomp (system calls): ptrace, process_vm_readv/writev, new sockets, io_uring, pidfd_getfd, kcmp, bpf,
//   perf_event_open, mounts and namespaces, keyrings, module loading. A refused call stops the worker at once and
//   names the call to the judge (one message on the channel) before the worker exits; a UNIX socket alone fails with
//   EACCES instead (libraries try one and fall back: glibc's user lookups ask nscd first).
// What the kernel lacks is reported, never a failure: the run's environment record says what held.
#include <filesystem>
#include <string>
#include <vector>

namespace vlb {

// The exit code of a worker stopped by the sandbox (after its message to the judge).
inline constexpr int kSandboxRefusalExitCode = 97;

struct SandboxPolicy {
  std::filesystem::path scratch;  // the worker's own folder: it may write there
  std::filesystem::path shared;   // a second writable folder, shared by a solution's workers (none when empty)
  int report_fd = -1;             // a connected SOCK_SEQPACKET socket: where a refused system call is reported
};

struct SandboxReport {
  int landlock_abi = 0;  // 0 when the kernel has no landlock
  bool seccomp = false;
  std::vector<std::string> enforced;  // what holds, one item per mechanism
  std::vector<std::string> missing;   // what could not be enforced on this kernel, and why
};

// What enter_sandbox would enforce on this kernel, without entering it (for the run's environment record).
SandboxReport sandbox_capabilities();

// Restricts this process (and every process it starts) for good. Throws SystemError when the kernel accepts a
// mechanism but applying it fails (a vlbench bug, not a missing feature).
SandboxReport enter_sandbox(const SandboxPolicy& policy);

// A lighter confinement for a package's build (a compiler's processes, which need their own /proc entries and new
// processes): landlock only, files written only under `writable` and to /dev/null, TCP refused, ptrace of anything
// outside refused (landlock's rule). Reads stay free. Throws SystemError when applying it fails.
SandboxReport confine_writes(const std::filesystem::path& writable);

// One line for the environment record: "landlock ABI 7 (files, /proc, signals, TCP), seccomp (14 system calls)".
std::string describe_sandbox(const SandboxReport& report);

// The message the worker sends when a system call is refused: {"type": "refused", "syscall": NAME}.
std::string refusal_message(const std::string& syscall_name);

}  // namespace vlb
