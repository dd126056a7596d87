// vlbench-worker: the process in which solution code runs, started by vlbench only.
//   vlbench-worker --serve SCRATCH DEVICE      the worker of one (solution, case): its channel to the judge is
//                                               descriptor 3, the handshake page descriptor 4
//   vlbench-worker --describe SCRATCH MODULE...  the modules' descriptions as JSON on stdout
//   vlbench-worker --confine FOLDER PROGRAM ARG...  PROGRAM, able to write under FOLDER only (a package's build)
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "harness/isolation/sandbox.hpp"
#include "harness/worker/worker_session.hpp"

namespace {

constexpr int kChannelFd = 3;
constexpr int kHandshakeFd = 4;

int usage() {
  std::fprintf(stderr,
               "vlbench-worker is started by vlbench, not by hand:\n"
               "  vlbench-worker --serve SCRATCH DEVICE\n"
               "  vlbench-worker --describe SCRATCH MODULE...\n"
               "  vlbench-worker --confine FOLDER PROGRAM ARG...\n");
  return 2;
}

bool parse_int(std::string_view text, int& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// Closes every descriptor past the channel and the handshake page: the worker holds nothing else of the judge's.
void close_inherited_descriptors() {
  if (syscall(SYS_close_range, kHandshakeFd + 1, ~0u, 0) == 0) return;
  for (int fd = kHandshakeFd + 1; fd < 1024; ++fd) close(fd);
}

// Replaces this process with `program` once file writes outside `writable` are refused for good (exit 126 when it
// cannot be started, as a shell does).
int confined(const std::string& writable, char** program) {
  try {
    const vlb::SandboxReport report = vlb::confine_writes(writable);
    for (const std::string& missing : report.missing) std::fprintf(stderr, "vlbench-worker: %s\n", missing.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "vlbench-worker: %s\n", error.what());
    return 126;
  }
  execvp(program[0], program);
  std::fprintf(stderr, "vlbench-worker: cannot start %s: %s\n", program[0], std::strerror(errno));
  return 126;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc >= 4 && std::string_view(argv[1]) == "--confine") return confined(argv[2], argv + 3);
  close_inherited_descriptors();
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.size() == 3 && arguments[0] == "--serve") {
    int device = 0;
    if (!parse_int(arguments[2], device)) return usage();
    return vlb::serve_judge(kChannelFd, kHandshakeFd, {arguments[1], {}}, device, vlb::open_module_solution);
  }
  if (arguments.size() >= 2 && arguments[0] == "--describe") {
    return vlb::describe_modules(arguments[1], {arguments.begin() + 2, arguments.end()});
  }
  return usage();
}
