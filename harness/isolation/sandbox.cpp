#include "harness/isolation/sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "harness/core/errors.hpp"
#include "harness/isolation/unique_fd.hpp"

namespace vlb {
namespace {

// Landlock's ABI, spelled here because Debian 12's kernel headers stop at ABI 2.
constexpr std::uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3;
constexpr std::uint64_t kAbi1Rights = (1ull << 13) - 1;  // execute ... make_sym
constexpr std::uint64_t kRefer = 1ull << 13;             // ABI 2
constexpr std::uint64_t kTruncate = 1ull << 14;          // ABI 3
constexpr std::uint64_t kIoctlDev = 1ull << 15;          // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;  // ABI 4
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;  // ABI 6
constexpr std::uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr unsigned kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};
struct PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
} __attribute__((packed));

int landlock_abi() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

std::uint64_t handled_fs_rights(int abi) {
  std::uint64_t rights = kAbi1Rights;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

class Ruleset {
 public:
  explicit Ruleset(int abi) : handled_(handled_fs_rights(abi)) {
    RulesetAttr attr{handled_, abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0, abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0};
    const std::size_t size = abi >= 6 ? sizeof(RulesetAttr) : abi >= 4 ? 2 * sizeof(std::uint64_t) : sizeof(std::uint64_t);
    fd_ = UniqueFd(static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
    if (!fd_.valid()) throw SystemError(fmt::format("landlock_create_ruleset: {}", std::strerror(errno)));
  }

  // Allows `rights` beneath `path` (a file takes only the file rights). A path that does not exist is skipped.
  void allow(const std::filesystem::path& path, std::uint64_t rights) {
    UniqueFd target(open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!target.valid()) return;
    PathBeneathAttr rule{rights & handled_, target.get()};
    if (syscall(SYS_landlock_add_rule, fd_.get(), kRulePathBeneath, &rule, 0) == 0) return;
    rule.allowed_access &= kFileRights;  // not a folder
    if (syscall(SYS_landlock_add_rule, fd_.get(), kRulePathBeneath, &rule, 0) != 0) {
      throw SystemError(fmt::format("landlock_add_rule for {}: {}", path.string(), std::strerror(errno)));
    }
  }

  void restrict_self() {
    if (syscall(SYS_landlock_restrict_self, fd_.get(), 0) != 0) {
      throw SystemError(fmt::format("landlock_restrict_self: {}", std::strerror(errno)));
    }
  }

 private:
  std::uint64_t handled_;
  UniqueFd fd_;
};

bool is_process_entry(std::string_view name) { return !name.empty() && name[0] >= '0' && name[0] <= '9'; }

template <class Visit>
void for_each_entry(const char* folder, Visit&& visit) {
  DIR* listing = opendir(folder);
  if (listing == nullptr) return;
  while (const dirent* entry = readdir(listing)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") visit(name);
  }
  closedir(listing);
}

void apply_landlock(int abi, const SandboxPolicy& policy) {
  constexpr std::uint64_t kRead = kExecute | kReadFile | kReadDir;
  Ruleset rules(abi);
  for_each_entry("/", [&](std::string_view name) {
    if (name != "proc") rules.allow(std::filesystem::path("/") / name, kRead);
  });
  // /proc: no other process's entries. "self" and "thread-self" resolve into our own entry.
  for_each_entry("/proc", [&](std::string_view name) {
    if (!is_process_entry(name) && name != "self" && name != "thread-self") {
      rules.allow(std::filesystem::path("/proc") / name, kRead);
    }
  });
  rules.allow(fmt::format("/proc/{}", getpid()), kRead);
  const std::uint64_t device_rights = kRead | kWriteFile | kTruncate | kIoctlDev;
  for_each_entry("/dev", [&](std::string_view name) {
    const bool allowed = name.starts_with("nvidia") || name == "null" || name == "zero" || name == "full" ||
                         name == "random" || name == "urandom";
    if (allowed) rules.allow(std::filesystem::path("/dev") / name, device_rights);
  });
  rules.allow(policy.scratch, handled_fs_rights(abi));
  if (!policy.shared.empty()) rules.allow(policy.shared, handled_fs_rights(abi));
  rules.restrict_self();
}

// seccomp: the refused system calls, by name (the SIGSYS handler looks the number up in a table made beforehand,
// since nothing in a signal handler may allocate).
constexpr std::array kRefusedSyscalls = {
    "ptrace",        "process_vm_readv", "process_vm_writev", "connect",       "bind",
    "listen",        "accept",           "accept4",           "io_uring_setup", "io_uring_enter", "io_uring_register",
    "pidfd_open",    "pidfd_getfd",      "pidfd_send_signal", "kcmp",          "bpf",          "perf_event_open",
    "mount",         "umount2",          "unshare",           "setns",         "pivot_root",   "chroot",
    "keyctl",        "add_key",          "request_key",       "init_module",   "finit_module", "delete_module",
    "kexec_load",    "process_madvise",  "userfaultfd"};

constexpr int kMaxSyscallNumber = 1024;
std::array<std::array<char, 96>, kMaxSyscallNumber> refusal_messages{};
int refusal_fd = -1;

void on_refused_syscall(int, siginfo_t* info, void*) {
  const int number = info->si_syscall;
  const char* message = number >= 0 && number < kMaxSyscallNumber && refusal_messages[number][0] != '\0'
                            ? refusal_messages[number].data()
                            : "{\"type\":\"refused\",\"syscall\":\"unknown\"}";
  if (refusal_fd >= 0) (void)!send(refusal_fd, message, std::strlen(message), MSG_NOSIGNAL);
  _exit(kSandboxRefusalExitCode);
}

void apply_seccomp(const SandboxPolicy& policy, bool signals_scoped) {
  refusal_fd = policy.report_fd;
  struct sigaction action {};
  action.sa_sigaction = on_refused_syscall;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSYS, &action, nullptr) != 0) {
    throw SystemError(fmt::format("sigaction(SIGSYS): {}", std::strerror(errno)));
  }
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (filter == nullptr) throw SystemError("seccomp_init failed");
  auto refuse = [&](const char* name, unsigned argument_count = 0, scmp_arg_cmp comparison = {}) {
    const int number = seccomp_syscall_resolve_name(name);
    if (number < 0) return;  // not on this architecture
    if (number < kMaxSyscallNumber) {
      const std::string message = refusal_message(name);
      std::snprintf(refusal_messages[number].data(), refusal_messages[number].size(), "%s", message.c_str());
    }
    const int added = argument_count == 0 ? seccomp_rule_add(filter, SCMP_ACT_TRAP, number, 0)
                                          : seccomp_rule_add(filter, SCMP_ACT_TRAP, number, 1, comparison);
    if (added != 0) {
      seccomp_release(filter);
      throw SystemError(fmt::format("seccomp_rule_add({}): {}", name, std::strerror(-added)));
    }
  };
  for (const char* name : kRefusedSyscalls) refuse(name);
  // A UNIX socket is refused with EACCES, not by stopping the worker: libraries ask for one on the way and fall back
  // (glibc's user lookups try nscd's socket first, which torch.compile's cache paths meet). It still cannot be
  // created, so nothing outside is reached through one. Every other family stops the worker.
  refuse("socket", 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  const int unix_refused = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                            SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
  if (unix_refused != 0) {
    seccomp_release(filter);
    throw SystemError(fmt::format("seccomp_rule_add(socket, AF_UNIX): {}", std::strerror(-unix_refused)));
  }
  if (!signals_scoped) {
    // Without landlock's signal scope: signals only to this process itself.
    const auto self = static_cast<scmp_datum_t>(getpid());
    refuse("kill", 1, SCMP_A0(SCMP_CMP_NE, self));
    refuse("tgkill", 1, SCMP_A0(SCMP_CMP_NE, self));
    refuse("tkill");
  }
  const int loaded = seccomp_load(filter);
  seccomp_release(filter);
  if (loaded != 0) throw SystemError(fmt::format("seccomp_load: {}", std::strerror(-loaded)));
}

}  // namespace

std::string refusal_message(const std::string& syscall_name) {
  return fmt::format("{{\"type\":\"refused\",\"syscall\":\"{}\"}}", syscall_name);
}

// Whether the kernel lets a filter trap system calls (seccomp's SECCOMP_GET_ACTION_AVAIL).
bool seccomp_available() {
  constexpr unsigned kGetActionAvail = 2;
  std::uint32_t action = SCMP_ACT_TRAP;
  return syscall(SYS_seccomp, kGetActionAvail, 0, &action) == 0;
}

SandboxReport sandbox_capabilities() {
  SandboxReport report;
  report.landlock_abi = landlock_abi();
  report.seccomp = seccomp_available();
  if (report.landlock_abi > 0) {
    report.enforced.push_back("files read-only outside the scratch folder and the GPU's device files");
    report.enforced.push_back("/proc: the worker's own entries only");
    if (report.landlock_abi >= 4) report.enforced.push_back("no TCP bind or connect");
    if (report.landlock_abi >= 6) report.enforced.push_back("signals and abstract sockets: the sandbox only");
    if (report.landlock_abi < 4) report.missing.push_back("landlock ABI < 4: TCP is left to seccomp's socket rule");
    if (report.landlock_abi < 6) {
      report.missing.push_back("landlock ABI < 6: signals are limited by seccomp (this process only)");
    }
  } else {
    report.missing.push_back("no landlock in this kernel: file access is not restricted");
  }
  if (report.seccomp) {
    report.enforced.push_back("seccomp: ptrace, process_vm_*, new sockets, io_uring, bpf, mounts, namespaces refused");
  } else {
    report.missing.push_back("no seccomp filters in this kernel: system calls are not restricted");
  }
  return report;
}

SandboxReport confine_writes(const std::filesystem::path& writable) {
  SandboxReport report;
  report.landlock_abi = landlock_abi();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    throw SystemError(fmt::format("prctl(PR_SET_NO_NEW_PRIVS): {}", std::strerror(errno)));
  }
  if (report.landlock_abi == 0) {
    report.missing.push_back("no landlock in this kernel: file access is not restricted");
    return report;
  }
  Ruleset rules(report.landlock_abi);
  for_each_entry("/", [&](std::string_view name) {
    rules.allow(std::filesystem::path("/") / name, kExecute | kReadFile | kReadDir);
  });
  rules.allow("/dev/null", kReadFile | kWriteFile | (report.landlock_abi >= 3 ? kTruncate : 0));
  rules.allow(writable, handled_fs_rights(report.landlock_abi));
  rules.restrict_self();
  report.enforced.push_back("files written only under " + writable.string());
  return report;
}

SandboxReport enter_sandbox(const SandboxPolicy& policy) {
  const SandboxReport report = sandbox_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    throw SystemError(fmt::format("prctl(PR_SET_NO_NEW_PRIVS): {}", std::strerror(errno)));
  }
  if (report.landlock_abi > 0) apply_landlock(report.landlock_abi, policy);
  if (report.seccomp) apply_seccomp(policy, report.landlock_abi >= 6);
  return report;
}

std::string describe_sandbox(const SandboxReport& report) {
  std::string text = report.landlock_abi > 0 ? fmt::format("landlock ABI {}", report.landlock_abi) : "no landlock";
  text += report.seccomp ? ", seccomp" : ", no seccomp";
  if (!report.missing.empty()) {
    text += " (missing: ";
    for (std::size_t i = 0; i < report.missing.size(); ++i) text += (i ? "; " : "") + report.missing[i];
    text += ")";
  }
  return text;
}

}  // namespace vlb
