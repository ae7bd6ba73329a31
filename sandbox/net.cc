#include "sandbox/net.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstring>

#include "sandbox/fd.h"

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

}  // namespace mcpgate::sandbox
