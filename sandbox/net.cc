#include "sandbox/net.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

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

}  // namespace mcpgate::sandbox
