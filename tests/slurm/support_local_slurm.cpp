#include "slurm/support_local_slurm.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/process.hpp"

namespace vlb::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNodeName = "vlbnode";
constexpr int kStandInGpus = 2;
constexpr double kStartTimeoutS = 40;
constexpr double kStopTimeoutS = 20;

LocalSlurm* the_cluster = nullptr;

// The daemons live in /usr/sbin on Debian, which a non-login PATH may lack.
std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/usr/bin:/sbin:/bin";
  std::istringstream folders(path);
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (!folder.empty() && access((fs::path(folder) / name).c_str(), X_OK) == 0) return fs::path(folder) / name;
  }
  return {};
}

std::string require_program(const std::string& name) {
  const std::string found = find_program(name);
  if (found.empty()) {
    throw SlurmUnavailable(name + " is not installed (scripts/setup_test_tools.sh installs Debian's slurm-wlm)");
  }
  return found;
}

// A TCP port nothing listens on now (the kernel's choice for port 0).
int free_port() {
  const int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof address;
  if (socket_fd < 0 || bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (socket_fd >= 0) close(socket_fd);
    throw SlurmUnavailable("cannot find a free TCP port for the daemons");
  }
  const int port = ntohs(address.sin_port);
  close(socket_fd);
  return port;
}

std::string short_host_name() {
  std::array<char, 256> name{};
  gethostname(name.data(), name.size() - 1);
  const std::string full = name.data();
  return full.substr(0, full.find('.'));
}

// Running, not a zombie (the daemons are not our children, so they cannot be waited for).
bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const std::size_t end_of_name = text.rfind(')');
  return end_of_name != std::string::npos && end_of_name + 2 < text.size() && text[end_of_name + 2] != 'Z';
}

pid_t read_pid(const fs::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

std::string tail_of(const fs::path& log, int lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string text;
  for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0; i < all.size(); ++i) {
    text += all[i] + "\n";
  }
  return text;
}

template <class Condition>
bool wait_until(Condition&& condition, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return true;
}

}  // namespace

LocalSlurm::LocalSlurm() {
  for (const char* program : {"slurmctld", "slurmd", "sbatch", "squeue", "sinfo"}) require_program(program);
  if (geteuid() != 0) throw SlurmUnavailable("slurmd starts jobs as their user and needs root here");
  const int ctld_port = free_port();
  int slurmd_port = free_port();
  while (slurmd_port == ctld_port) slurmd_port = free_port();
  write_configuration(ctld_port, slurmd_port);
  start_daemons();
}

LocalSlurm::~LocalSlurm() { stop_daemons(); }

std::vector<std::string> LocalSlurm::environment() const {
  return {"SLURM_CONF=" + (folder() / "slurm.conf").string()};
}

void LocalSlurm::write_configuration(int ctld_port, int slurmd_port) {
  const fs::path dir = folder();
  for (const char* sub : {"state", "spool", "log", "dev"}) fs::create_directories(dir / sub);
  // Stand-in GPUs: Slurm only hands out GRES backed by device files, which mknod can make as root (not everywhere).
  gpus_ = kStandInGpus;
  for (int i = 0; i < kStandInGpus; ++i) {
    const fs::path node = dir / "dev" / ("nvidia" + std::to_string(i));
    if (mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) gpus_ = 0;
  }
  const std::string host = short_host_name();
  std::ofstream conf(dir / "slurm.conf");
  conf << "ClusterName=vlbtest\n"
       << "SlurmctldHost=" << host << "(127.0.0.1)\n"
       << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << slurmd_port << "\n"
       << "AuthType=auth/none\nCredType=cred/none\nSlurmUser=root\nSlurmdUser=root\n"
       << "StateSaveLocation=" << (dir / "state").string() << "\n"
       << "SlurmdSpoolDir=" << (dir / "spool").string() << "\n"
       << "SlurmctldPidFile=" << (dir / "slurmctld.pid").string() << "\n"
       << "SlurmdPidFile=" << (dir / "slurmd.pid").string() << "\n"
       << "SlurmctldLogFile=" << (dir / "log" / "slurmctld.log").string() << "\n"
       << "SlurmdLogFile=" << (dir / "log" / "slurmd.log").string() << "\n"
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
       << "AccountingStorageType=accounting_storage/none\nMpiDefault=none\n"
       << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nSlurmdParameters=config_overrides\n"
       << "ReturnToService=2\nSchedulerParameters=sched_min_interval=100000\n"
       << (gpus_ > 0 ? "GresTypes=gpu\n" : "")
       << "NodeName=" << kNodeName << " NodeHostname=" << host << " NodeAddr=127.0.0.1 CPUs="
       << std::max(1u, std::thread::hardware_concurrency())
       << (gpus_ > 0 ? " Gres=gpu:" + std::to_string(gpus_) : std::string()) << " State=UNKNOWN\n"
       << "PartitionName=vlb Nodes=" << kNodeName << " Default=YES MaxTime=INFINITE State=UP\n";
  if (gpus_ > 0) {
    std::ofstream(dir / "gres.conf") << "Name=gpu File=" << (dir / "dev").string() << "/nvidia[0-"
                                     << gpus_ - 1 << "]\n";
  }
}

void LocalSlurm::start_daemons() {
  const std::string conf = (folder() / "slurm.conf").string();
  started_ = true;  // from here on, whatever came up is stopped
  const ProcessResult controller = run_process(find_program("slurmctld"), {"-f", conf});
  const ProcessResult node = run_process(find_program("slurmd"), {"-f", conf, "-N", kNodeName});
  const bool idle = wait_until(
      [&] {
        const ProcessResult state = run_process(find_program("sinfo"), {"-h", "-N", "-o", "%T"}, environment());
        return state.exit_code == 0 && state.output.starts_with("idle");
      },
      kStartTimeoutS);
  if (!idle) {
    const std::string why = "the local slurmctld/slurmd did not come up within " +
                            std::to_string(static_cast<int>(kStartTimeoutS)) + " s:\n" + controller.output +
                            node.output + daemon_logs();
    stop_daemons();
    throw SlurmUnavailable(why);
  }
}

void LocalSlurm::stop_daemons() {
  if (!started_) return;
  started_ = false;
  std::vector<pid_t> pids;
  for (const char* file : {"slurmd.pid", "slurmctld.pid"}) {
    const pid_t pid = read_pid(folder() / file);
    if (pid > 0 && process_alive(pid)) {
      kill(pid, SIGTERM);
      pids.push_back(pid);
    }
  }
  for (pid_t pid : pids) {
    if (!wait_until([&] { return !process_alive(pid); }, kStopTimeoutS)) kill(pid, SIGKILL);
  }
}

std::string LocalSlurm::submit(const std::vector<std::string>& arguments,
                               const std::vector<std::string>& environment) const {
  std::vector<std::string> all = {"--parsable"};
  all.insert(all.end(), arguments.begin(), arguments.end());
  std::vector<std::string> variables = this->environment();
  variables.insert(variables.end(), environment.begin(), environment.end());
  const ProcessResult result = run_process(find_program("sbatch"), all, variables);
  if (result.exit_code != 0) throw std::runtime_error("sbatch failed: " + result.output);
  std::string id = result.output.substr(0, result.output.find_first_of(";\n"));
  return id;
}

bool LocalSlurm::wait(const std::string& job, double timeout_s) const {
  return wait_until(
      [&] {
        const ProcessResult queue = run_process(find_program("squeue"), {"-h", "-j", job, "-o", "%i"}, environment());
        // squeue forgets a finished job after a while and then says it is invalid: gone either way.
        return queue.output.find_first_not_of(" \n") == std::string::npos ||
               queue.output.find("Invalid job id") != std::string::npos;
      },
      timeout_s);
}

std::string LocalSlurm::daemon_logs() const {
  return "--- slurmctld.log\n" + tail_of(folder() / "log" / "slurmctld.log", 8) + "--- slurmd.log\n" +
         tail_of(folder() / "log" / "slurmd.log", 8);
}

LocalSlurm& local_slurm() {
  if (the_cluster == nullptr) throw std::logic_error("no local Slurm: tests/slurm/main.cpp starts it");
  return *the_cluster;
}

void set_local_slurm(LocalSlurm* cluster) { the_cluster = cluster; }

}  // namespace vlb::testing
