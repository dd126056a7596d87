#pragma once
// The per-call go/done handshake between the judge and a worker, over one page of shared memory (a memfd that both
// map): the worker says it is ready for call n, the judge writes go = n and starts its own clock, the worker runs the
// call and writes done = n. Neither side makes a system call on the way, so the judge's outside clock of a call (go
// written -> done seen) adds well under a microsecond to it. Call numbers start at 1. The worker can write anything
// into the page: the judge reads it as a claim to check (a done before its go is a broken protocol).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "harness/isolation/unique_fd.hpp"

namespace vlb {

using SteadyClock = std::chrono::steady_clock;

enum class WaitOutcome { kSeen, kTimedOut, kGiveUp };

class CallHandshake {
 public:
  static CallHandshake create();               // the judge's side: a fresh page, zeroed
  static CallHandshake attach(UniqueFd page);  // the worker's side: the page the judge handed over
  ~CallHandshake();
  CallHandshake(CallHandshake&& other) noexcept;
  CallHandshake& operator=(CallHandshake&&) = delete;
  CallHandshake(const CallHandshake&) = delete;
  int fd() const { return page_.get(); }

  // The worker's side.
  void mark_ready(std::uint64_t call);
  // Spins until go == call, or until `keep_waiting` (asked about once a millisecond) says no.
  WaitOutcome wait_go(std::uint64_t call, const std::function<bool()>& keep_waiting);
  void mark_done(std::uint64_t call);

  // The judge's side. Each wait spins until its slot reads `call`, the deadline passes, or `keep_waiting` (asked about
  // once a millisecond: is the worker alive, has it sent a message instead) says no.
  WaitOutcome wait_ready(std::uint64_t call, SteadyClock::time_point deadline, const std::function<bool()>& keep_waiting);
  // Writes go = call; returns the time read just before.
  SteadyClock::time_point go(std::uint64_t call);
  WaitOutcome wait_done(std::uint64_t call, SteadyClock::time_point deadline, const std::function<bool()>& keep_waiting);
  std::uint64_t ready_slot() const;
  std::uint64_t done_slot() const;

  struct alignas(64) Slot {
    std::atomic<std::uint64_t> value{0};
  };
  struct Page {
    Slot ready, go, done;
  };

 private:
  CallHandshake(UniqueFd page, Page* mapped) : page_(std::move(page)), mapped_(mapped) {}
  UniqueFd page_;
  Page* mapped_ = nullptr;
};

// Spins (a pause instruction, then yielding once past a millisecond) until `seen()`; asks `keep_waiting` about once a
// millisecond and gives up when it says no, or when `deadline` passes.
WaitOutcome spin_until(const std::function<bool()>& seen, SteadyClock::time_point deadline,
                       const std::function<bool()>& keep_waiting);

}  // namespace vlb
