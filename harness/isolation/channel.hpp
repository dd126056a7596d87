#pragma once
// The message channel between the judge and one worker process: whole JSON messages over a SOCK_SEQPACKET socket
// pair (message boundaries kept, never a partial read), file descriptors passed beside a message (SCM_RIGHTS). The
// worker end is untrusted: what arrives there is checked by the receiver, never taken on its word.
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/core/errors.hpp"
#include "harness/core/json_value.hpp"
#include "harness/isolation/unique_fd.hpp"

namespace vlb {

// The largest message either end sends or accepts (a call's report with its kernel records fits many times over).
inline constexpr std::size_t kMaxChannelMessageBytes = std::size_t{128} << 10;
inline constexpr int kMaxChannelFds = 16;

// The other end broke the protocol or went away: a message that is not JSON, too large, or truncated; too many fds.
class ChannelError : public Error {
 public:
  explicit ChannelError(const std::string& message, std::source_location where = std::source_location::current())
      : Error(message, ExitCode::kSystemError, where) {}
};

// The other end closed its end: nothing more will come (a worker that exited or died).
class ChannelClosed : public ChannelError {
 public:
  using ChannelError::ChannelError;
};

struct ChannelMessage {
  JsonDocument body;
  std::vector<UniqueFd> fds;
};

class Channel {
 public:
  // Two connected ends: {parent end, child end}. Both close on exec; the child end is handed over by ChildProcess.
  static std::pair<Channel, Channel> create_pair();
  explicit Channel(UniqueFd socket) : socket_(std::move(socket)) {}

  // Throws ChannelError when the peer is gone or the message is too large.
  void send(const nlohmann::json& body, std::span<const int> fds = {});
  // The next message, or nullopt when `deadline` passes first. Throws ChannelError when the peer has closed its end
  // (nothing more will come) or sent something malformed.
  std::optional<ChannelMessage> receive(std::chrono::steady_clock::time_point deadline);
  // Blocks until a message arrives (ChannelError when the peer closes first).
  ChannelMessage receive();
  // Whether a message (or the peer's close) is waiting, without taking it.
  bool readable() const;

  int fd() const { return socket_.get(); }

 private:
  UniqueFd socket_;
};

}  // namespace vlb
