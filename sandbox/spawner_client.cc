#include "sandbox/spawner_client.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <array>
#include <charconv>
#include <cstring>
#include <vector>

#include "sandbox/fd_passing.h"

namespace mcpgate::sandbox::spawner {

namespace {

constexpr timeval kReplyTimeout{10, 0};  // a spawn is a posix_spawn: milliseconds

std::expected<UniqueFd, Error> connectTo(const std::string& socket_path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path)
    return std::unexpected(Error{"spawner socket path too long: " + socket_path});
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return std::unexpected(sysError("socket for the spawner"));
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &kReplyTimeout, sizeof kReplyTimeout);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &kReplyTimeout, sizeof kReplyTimeout);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    return std::unexpected(sysError("connect to the spawner at " + socket_path));
  return fd;
}

void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

std::expected<Child, Error> startThrough(const std::string& socket_path, std::string_view name) {
  auto fd = connectTo(socket_path);
  if (!fd) return std::unexpected(fd.error());
  const std::string request = std::string(kStart) + std::string(name);
  if (request.size() > kMaxMessage || ::send(fd->get(), request.data(), request.size(),
                                             MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
    return std::unexpected(sysError("send to the spawner"));
  std::array<char, kMaxMessage> buffer{};
  std::vector<UniqueFd> fds;
  const ssize_t n = receiveWithFds(fd->get(), buffer.data(), buffer.size(), fds);
  if (n <= 0) {
    return std::unexpected(n == 0 ? Error{"the spawner closed the connection without an answer"}
                                  : sysError("no answer from the spawner"));
  }
  const std::string_view reply(buffer.data(), static_cast<std::size_t>(n));
  if (reply.starts_with(kRefused))
    return std::unexpected(
        Error{"the spawner refused: " + std::string(reply.substr(kRefused.size()))});
  const auto malformed = [&] {
    return std::unexpected(Error{"malformed answer from the spawner: " + std::string(reply)});
  };
  if (!reply.starts_with(kStarted)) return malformed();
  const std::string_view rest = reply.substr(kStarted.size());
  const std::size_t space = rest.find(' ');
  if (space == std::string_view::npos) return malformed();
  pid_t pid = -1;
  if (std::from_chars(rest.data(), rest.data() + space, pid).ec != std::errc{} || pid <= 0)
    return malformed();
  const std::string_view names = rest.substr(space + 1);
  if (names.size() != fds.size()) return malformed();
  Child child;
  child.pid = pid;
  for (std::size_t i = 0; i < names.size(); ++i) {
    UniqueFd& f = fds[i];
    switch (names[i]) {
      case 'p':
        child.pidfd = std::move(f);
        break;
      case 'i':
        child.stdin_fd = std::move(f);
        break;
      case 'o':
        child.stdout_fd = std::move(f);
        break;
      case 'e':
        child.stderr_fd = std::move(f);
        break;
      case 'r':
        child.report_fd = std::move(f);
        break;
      case 'g':
        child.egress_fd = std::move(f);
        break;
      default:
        return malformed();
    }
  }
  if (!child.pidfd.valid() || !child.stdin_fd.valid() || !child.stdout_fd.valid() ||
      !child.stderr_fd.valid())
    return malformed();
  for (int f : {child.stdin_fd.get(), child.stdout_fd.get(), child.stderr_fd.get(),
                child.report_fd.get()}) {
    if (f >= 0) setNonBlocking(f);
  }
  child.control = std::move(*fd);
  return child;
}

}  // namespace mcpgate::sandbox::spawner
