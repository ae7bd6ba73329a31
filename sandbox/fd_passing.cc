#include "sandbox/fd_passing.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace mcpgate::sandbox {

namespace {
using Control = std::array<char, CMSG_SPACE(sizeof(int) * kMaxPassedFds)>;
}  // namespace

bool sendWithFds(int channel, const void* data, std::size_t size, std::span<const int> fds,
                 int flags) {
  if (size == 0 || fds.size() > kMaxPassedFds) return false;
  iovec iov{const_cast<void*>(data), size};
  alignas(cmsghdr) Control control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n = 0;
  do {
    n = ::sendmsg(channel, &msg, MSG_NOSIGNAL | flags);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(size);
}

ssize_t receiveWithFds(int channel, void* buffer, std::size_t size, std::vector<UniqueFd>& fds,
                       int flags) {
  iovec iov{buffer, size};
  alignas(cmsghdr) Control control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n = 0;
  do {
    n = ::recvmsg(channel, &msg, MSG_CMSG_CLOEXEC | flags);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);
    }
  }
  if ((msg.msg_flags & MSG_CTRUNC) != 0) return -1;
  return n;
}

bool sendDescriptor(int channel, int fd) {
  const char byte = 'f';
  return sendWithFds(channel, &byte, 1, std::span<const int>(&fd, 1));
}

UniqueFd receiveDescriptor(int channel) {
  char byte = 0;
  std::vector<UniqueFd> fds;
  if (receiveWithFds(channel, &byte, 1, fds) <= 0 || fds.empty()) return {};
  return std::move(fds.back());
}

bool readAll(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool writeAll(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace mcpgate::sandbox
