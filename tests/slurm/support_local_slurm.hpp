#pragma once
// A single-node Slurm on localhost for the tests of scripts/slurm: slurmctld and slurmd (Debian's slurm-wlm) with a
// private configuration, state and logs in a scratch folder, on free ports, started by the constructor and stopped by
// the destructor. Where the device nodes can be made, the node offers two stand-in GPUs (character devices aliasing
// /dev/null, declared as GRES gpu), so that `--gres=gpu:1` is granted and Slurm sets CUDA_VISIBLE_DEVICES per task.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/scratch_folder.hpp"

namespace vlb::testing {

// Why Slurm cannot run here (not installed, not root, a daemon that did not come up): the tests are skipped with it.
class SlurmUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class LocalSlurm {
 public:
  LocalSlurm();  // throws SlurmUnavailable
  ~LocalSlurm();
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  int gpus() const { return gpus_; }  // stand-in GPUs offered (0 where device nodes cannot be made)
  const std::filesystem::path& folder() const { return scratch_.path(); }
  // "SLURM_CONF=...", for every Slurm command the tests run.
  std::vector<std::string> environment() const;

  // sbatch --parsable ARGUMENTS (with `environment` added to the client's); returns the job id. Fails the test
  // (std::runtime_error with sbatch's output) when sbatch refuses.
  std::string submit(const std::vector<std::string>& arguments, const std::vector<std::string>& environment) const;
  // Waits until the job (every task of an array) has left the queue; false at the deadline.
  bool wait(const std::string& job, double timeout_s) const;
  // The daemons' last log lines, for failure messages.
  std::string daemon_logs() const;

 private:
  void write_configuration(int ctld_port, int slurmd_port);
  void start_daemons();
  void stop_daemons();

  ScratchFolder scratch_;
  int gpus_ = 0;
  bool started_ = false;
};

// The one cluster of the test executable (started by its main).
LocalSlurm& local_slurm();
void set_local_slurm(LocalSlurm* cluster);

}  // namespace vlb::testing
