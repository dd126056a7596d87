// The go/done handshake over a shared page, between two processes as the judge and a worker use it.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "harness/isolation/call_handshake.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// A child process that plays the worker for calls 1..n: ready, wait for go, `call_ms` of work, done.
pid_t start_worker(const vlb::CallHandshake& page, int calls, int call_ms) {
  const pid_t pid = fork();
  if (pid == 0) {
    vlb::CallHandshake worker = vlb::CallHandshake::attach(vlb::UniqueFd(dup(page.fd())));
    for (int call = 1; call <= calls; ++call) {
      worker.mark_ready(call);
      if (worker.wait_go(call, nullptr) != vlb::WaitOutcome::kSeen) _exit(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(call_ms));
      worker.mark_done(call);
    }
    _exit(0);
  }
  return pid;
}

}  // namespace

TEST_CASE("go and done cross between processes; the judge's clock holds the call", "[isolation][handshake]") {
  vlb::CallHandshake judge = vlb::CallHandshake::create();
  const pid_t worker = start_worker(judge, 3, 10);
  REQUIRE(worker > 0);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  for (std::uint64_t call = 1; call <= 3; ++call) {
    REQUIRE(judge.wait_ready(call, deadline, nullptr) == vlb::WaitOutcome::kSeen);
    CHECK(judge.done_slot() == call - 1);  // nothing reported before the go
    const auto go = judge.go(call);
    REQUIRE(judge.wait_done(call, deadline, nullptr) == vlb::WaitOutcome::kSeen);
    const double elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - go).count();
    CHECK(elapsed_ms >= 10.0);
  }
  int status = 0;
  REQUIRE(waitpid(worker, &status, 0) == worker);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("a wait ends at its deadline, or when the judge stops waiting", "[isolation][handshake]") {
  vlb::CallHandshake judge = vlb::CallHandshake::create();
  const auto started = Clock::now();
  CHECK(judge.wait_done(1, started + std::chrono::milliseconds(30), nullptr) == vlb::WaitOutcome::kTimedOut);
  CHECK(Clock::now() - started >= std::chrono::milliseconds(30));
  int asked = 0;
  CHECK(judge.wait_ready(1, Clock::now() + std::chrono::seconds(10), [&] { return ++asked < 3; }) ==
        vlb::WaitOutcome::kGiveUp);
  CHECK(asked == 3);
}
