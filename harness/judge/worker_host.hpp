#pragma once
// The default host: one sandboxed worker process (vlbench-worker --serve) per (solution, case), driven over its
// channel and handshake (isolation/worker_protocol.hpp). The judge takes no word from it: it checks every message
// against the protocol (a message out of turn, a done before its go, an impossible figure: REWARD_HACK, since
// vlbench's own worker never does that), keeps its own clock of every call, and reads the outputs itself. A worker
// that crashes, is stopped by its sandbox or runs past the case's time limit costs that case alone.
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/isolation/call_handshake.hpp"
#include "harness/isolation/channel.hpp"
#include "harness/isolation/child_process.hpp"
#include "harness/judge/solution_host.hpp"
#include "harness/plan/solution_catalog.hpp"

namespace vlb {

// How a worker is started, up to its "--serve SCRATCH DEVICE [SHARED_CACHE]": vlbench-worker for a solution module,
// the Python worker's program under the user's Python for a Python package.
struct WorkerCommand {
  std::filesystem::path executable;
  std::vector<std::string> arguments;  // argv[0] first
  std::filesystem::path shared_cache;  // a Python package's framework cache for this run (empty: none)
  std::filesystem::path extension;     // a C++ group package's built module (empty: none)
};
// Builds a C++ group package first (or finds it built) for a GPU of `compute_capability`: BuildFailure when it
// cannot be.
WorkerCommand worker_command_for(const CatalogEntry& entry, int compute_capability);

class WorkerHost final : public SolutionHost {
 public:
  // Starts the worker (vlbench-worker, or `executable`: tests start stand-ins) on `device` and waits for its hello;
  // `case_timeout_s` bounds the whole session. Throws HostFailure when the worker fails before its hello.
  WorkerHost(int device, double case_timeout_s);
  WorkerHost(const std::filesystem::path& executable, int device, double case_timeout_s);
  WorkerHost(const WorkerCommand& command, int device, double case_timeout_s);
  ~WorkerHost() override;

  bool isolated() const override { return true; }
  bool cupti_available() const override { return hello_.cupti_available; }
  const protocol::SandboxRecord& sandbox() const { return hello_.sandbox; }
  void share(const CallPlacements& placements, std::size_t first) override;
  HostLoad load(const CatalogEntry& entry, const ProblemShape& shape) override;
  HostCall call(std::uint64_t call, protocol::CallKind kind, const CallPlacements& placements, int placement,
                const std::function<void()>& on_done) override;
  std::vector<CallActivity> activities(const std::vector<std::uint64_t>& calls) override;
  void finish() override;

  // The protocol below the placements, as the methods above use it (and the protocol's tests, with a stand-in).
  void share_buffers(const protocol::BuffersMessage& message, const std::vector<int>& fds);
  HostCall run_call(const protocol::CallMessage& message, const std::function<void()>& on_done);

 private:
  template <class Message>
  Message expect();
  JsonDocument next_message();
  [[noreturn]] void fail_on(const JsonDocument& body);
  [[noreturn]] void worker_gone();
  [[noreturn]] void timed_out();
  [[noreturn]] void broke_protocol(const std::string& what);
  bool keep_waiting();

  ScratchDir scratch_;
  std::filesystem::path log_;
  std::chrono::steady_clock::time_point deadline_;
  double case_timeout_s_;
  std::filesystem::path extension_;
  std::optional<Channel> channel_;
  CallHandshake handshake_;
  std::unique_ptr<ChildProcess> worker_;
  protocol::HelloMessage hello_;
  std::size_t shared_ = 0;  // buffers shared so far
};

}  // namespace vlb
