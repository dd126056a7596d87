#include "harness/isolation/call_handshake.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "harness/core/errors.hpp"

namespace vlb {
namespace {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the handshake's slots must be address-free atomics");

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

CallHandshake::Page* map_page(int fd) {
  void* mapped = mmap(nullptr, sizeof(CallHandshake::Page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mapped == MAP_FAILED) throw SystemError(fmt::format("cannot map the handshake page: {}", std::strerror(errno)));
  return static_cast<CallHandshake::Page*>(mapped);
}

}  // namespace

WaitOutcome spin_until(const std::function<bool()>& seen, SteadyClock::time_point deadline,
                       const std::function<bool()>& keep_waiting) {
  const SteadyClock::time_point started = SteadyClock::now();
  SteadyClock::time_point next_check = started + std::chrono::milliseconds(1);
  for (std::uint64_t spins = 0;; ++spins) {
    if (seen()) return WaitOutcome::kSeen;
    cpu_relax();
    if ((spins & 255) != 0) continue;
    const SteadyClock::time_point now = SteadyClock::now();
    if (now >= deadline) return WaitOutcome::kTimedOut;
    if (now < next_check) continue;
    next_check = now + std::chrono::milliseconds(1);
    if (keep_waiting && !keep_waiting()) return seen() ? WaitOutcome::kSeen : WaitOutcome::kGiveUp;
    sched_yield();  // a long call: leave the core to others between looks
  }
}

CallHandshake CallHandshake::create() {
  UniqueFd page(memfd_create("vlbench-handshake", MFD_CLOEXEC));
  if (!page.valid()) throw SystemError(fmt::format("cannot create the handshake page: {}", std::strerror(errno)));
  if (ftruncate(page.get(), sizeof(Page)) != 0) {
    throw SystemError(fmt::format("cannot size the handshake page: {}", std::strerror(errno)));
  }
  Page* mapped = map_page(page.get());
  new (mapped) Page{};
  return CallHandshake(std::move(page), mapped);
}

CallHandshake CallHandshake::attach(UniqueFd page) {
  Page* mapped = map_page(page.get());
  return CallHandshake(std::move(page), mapped);
}

CallHandshake::~CallHandshake() {
  if (mapped_ != nullptr) munmap(mapped_, sizeof(Page));
}

CallHandshake::CallHandshake(CallHandshake&& other) noexcept
    : page_(std::move(other.page_)), mapped_(std::exchange(other.mapped_, nullptr)) {}

void CallHandshake::mark_ready(std::uint64_t call) { mapped_->ready.value.store(call, std::memory_order_release); }

WaitOutcome CallHandshake::wait_go(std::uint64_t call, const std::function<bool()>& keep_waiting) {
  return spin_until([&] { return mapped_->go.value.load(std::memory_order_acquire) == call; },
                    SteadyClock::time_point::max(), keep_waiting);
}

void CallHandshake::mark_done(std::uint64_t call) { mapped_->done.value.store(call, std::memory_order_release); }

WaitOutcome CallHandshake::wait_ready(std::uint64_t call, SteadyClock::time_point deadline,
                                      const std::function<bool()>& keep_waiting) {
  return spin_until([&] { return mapped_->ready.value.load(std::memory_order_acquire) == call; }, deadline,
                    keep_waiting);
}

SteadyClock::time_point CallHandshake::go(std::uint64_t call) {
  const SteadyClock::time_point now = SteadyClock::now();
  mapped_->go.value.store(call, std::memory_order_release);
  return now;
}

WaitOutcome CallHandshake::wait_done(std::uint64_t call, SteadyClock::time_point deadline,
                                     const std::function<bool()>& keep_waiting) {
  return spin_until([&] { return mapped_->done.value.load(std::memory_order_acquire) == call; }, deadline,
                    keep_waiting);
}

std::uint64_t CallHandshake::ready_slot() const { return mapped_->ready.value.load(std::memory_order_acquire); }
std::uint64_t CallHandshake::done_slot() const { return mapped_->done.value.load(std::memory_order_acquire); }

}  // namespace vlb
