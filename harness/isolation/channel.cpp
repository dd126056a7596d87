#include "harness/isolation/channel.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vlb {
namespace {

// Nesting deeper than any message of the protocol: refused before parsing, since a deep document would recurse.
constexpr int kMaxMessageDepth = 32;

int nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}') --depth;
  }
  return deepest;
}

JsonDocument parse_message(std::string_view text) {
  if (nesting_depth(text) > kMaxMessageDepth) {
    throw ChannelError(fmt::format("a message nested deeper than {} levels", kMaxMessageDepth));
  }
  try {
    return JsonDocument::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw ChannelError(fmt::format("a message that is not JSON ({})", error.what()));
  }
}

}  // namespace

std::pair<Channel, Channel> Channel::create_pair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    throw SystemError(fmt::format("cannot create a worker's channel: {}", std::strerror(errno)));
  }
  return {Channel(UniqueFd(fds[0])), Channel(UniqueFd(fds[1]))};
}

void Channel::send(const nlohmann::json& body, std::span<const int> fds) {
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxChannelMessageBytes) {
    throw ChannelError(fmt::format("a message of {} bytes (at most {})", text.size(), kMaxChannelMessageBytes));
  }
  if (fds.size() > static_cast<std::size_t>(kMaxChannelFds)) throw ChannelError("too many descriptors in one message");
  msghdr message{};
  iovec part{const_cast<char*>(text.data()), text.size()};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxChannelFds)] = {};
  if (!fds.empty()) {
    message.msg_control = control;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t sent;
  do sent = sendmsg(socket_.get(), &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) throw ChannelClosed(fmt::format("the other end is gone ({})", std::strerror(errno)));
}

std::optional<ChannelMessage> Channel::receive(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd waiting{socket_.get(), POLLIN, 0};
    const int ready = poll(&waiting, 1, static_cast<int>(std::max<long long>(0, std::min<long long>(left.count(), 1000))));
    if (ready < 0 && errno != EINTR) throw SystemError(fmt::format("waiting on a worker's channel: {}", std::strerror(errno)));
    if (ready > 0) break;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
  }
  std::string text(kMaxChannelMessageBytes + 1, '\0');
  msghdr message{};
  iovec part{text.data(), text.size()};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxChannelFds)] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  ssize_t length;
  do length = recvmsg(socket_.get(), &message, MSG_CMSG_CLOEXEC);
  while (length < 0 && errno == EINTR);
  if (length < 0) throw ChannelError(fmt::format("reading from the other end failed ({})", std::strerror(errno)));

  ChannelMessage received;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
      received.fds.emplace_back(fd);
    }
  }
  if (length == 0) throw ChannelClosed("the other end closed the channel");
  if ((message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0) {
    throw ChannelError(fmt::format("a message larger than {} bytes, or with too many descriptors", kMaxChannelMessageBytes));
  }
  text.resize(static_cast<std::size_t>(length));
  received.body = parse_message(text);
  return received;
}

ChannelMessage Channel::receive() {
  for (;;) {
    if (auto message = receive(std::chrono::steady_clock::now() + std::chrono::hours(1))) return std::move(*message);
  }
}

bool Channel::readable() const {
  pollfd waiting{socket_.get(), POLLIN, 0};
  return poll(&waiting, 1, 0) > 0;
}

}  // namespace vlb
