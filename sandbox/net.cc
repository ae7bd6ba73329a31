#include "sandbox/net.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace mcpgate::sandbox {

std::expected<void, Error> bringUpLoopback() {
  UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return std::unexpected(sysError("socket for loopback setup"));
  ifreq req{};
  std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(sock.get(), SIOCGIFFLAGS, &req) != 0)
    return std::unexpected(sysError("SIOCGIFFLAGS lo"));
  req.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (::ioctl(sock.get(), SIOCSIFFLAGS, &req) != 0) return std::unexpected(sysError("bring up lo"));
  return {};
}

std::expected<UniqueFd, Error> openEgressListener() {
  UniqueFd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return std::unexpected(sysError("socket for the egress proxy port"));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(kEgressProxyPort);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return std::unexpected(
        sysError("bind 127.0.0.1:" + std::to_string(kEgressProxyPort) + " for the egress proxy"));
  }
  if (::listen(sock.get(), 128) != 0) return std::unexpected(sysError("listen (egress proxy)"));
  return sock;
}

bool sendDescriptor(int channel, int fd) {
  char byte = 'f';
  iovec iov{&byte, 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  ssize_t n = 0;
  do {
    n = ::sendmsg(channel, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == 1;
}

UniqueFd receiveDescriptor(int channel) {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int))> control{};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n = 0;
  do {
    n = ::recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  UniqueFd received;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
    received.reset(fd);
  }
  return received;
}

}  // namespace mcpgate::sandbox
