#include "sandbox/socket_notify.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox/fd_passing.h"
#include "sandbox/socket_calls.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL  // linux/pidfd.h from 6.9 on
#endif

namespace mcpgate::sandbox {
namespace {

// Calls that may block (a blocking socket) each wait on a thread of their own;
// past this many at once, a new one is answered EAGAIN.
constexpr int kMaxBlockingCalls = 64;

// The thread group of `tid`, for kernels without PIDFD_THREAD.
pid_t threadGroupOf(pid_t tid) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Tgid:")) return static_cast<pid_t>(std::atoi(line.c_str() + 5));
  }
  return -1;
}

UniqueFd openPidfd(pid_t tid) {
  UniqueFd fd(static_cast<int>(::syscall(SYS_pidfd_open, tid, PIDFD_THREAD)));
  if (fd.valid() || errno != EINVAL) return fd;
  const pid_t tgid = threadGroupOf(tid);
  return UniqueFd(tgid > 0 ? static_cast<int>(::syscall(SYS_pidfd_open, tgid, 0)) : -1);
}

}  // namespace

struct SocketGuard::State {
  UniqueFd listener;
  UniqueFd stop;  // an eventfd: the guard's destructor ends the loop
  HostBlock block;
  std::function<void(const Refusal&)> refused;
  seccomp_notif_sizes sizes{};
  std::atomic<int> blocking_calls{0};

  [[nodiscard]] bool idValid(std::uint64_t id) const {
    return ::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
  }

  void respond(std::uint64_t id, Answer a, bool continue_call = false) const {
    std::vector<char> buffer(
        std::max<std::size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
    auto* resp = reinterpret_cast<seccomp_notif_resp*>(buffer.data());
    resp->id = id;
    if (continue_call) {
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    } else {
      resp->val = a.value;
      resp->error = a.error != 0 ? -a.error : 0;
    }
    // ENOENT: the call was interrupted (a signal) or its process is gone.
    (void)::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_SEND, resp);
  }

  void handle(const Notice& n, const std::shared_ptr<State>& self) {
    UniqueFd pidfd = openPidfd(n.pid);
    if (!pidfd.valid() || !idValid(n.id)) return respond(n.id, {-1, ESRCH});
    // The pidfd names the waiting thread now that the call is known to wait.
    UniqueFd sock(static_cast<int>(
        ::syscall(SYS_pidfd_getfd, pidfd.get(), static_cast<int>(n.args[0] & 0xffffffffU), 0)));
    if (!sock.valid()) return respond(n.id, {-1, errno == EBADF ? EBADF : EACCES});
    int domain = 0;
    socklen_t size = sizeof domain;
    if (::getsockopt(sock.get(), SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0)
      return respond(n.id, {-1, errno});
    // unix and netlink sockets: the kernel refuses an IP address on them.
    if (domain != AF_INET && domain != AF_INET6) return respond(n.id, {}, true);
    PreparedCall p =
        prepareCall(n, std::move(sock), block, [this, id = n.id] { return idValid(id); });
    if (p.refused && refused) refused(*p.refused);
    if (!p.call) return respond(n.id, p.answer);
    if (!p.may_block) return respond(n.id, p.call());
    if (blocking_calls.fetch_add(1) >= kMaxBlockingCalls) {
      blocking_calls.fetch_sub(1);
      return respond(n.id, {-1, EAGAIN});
    }
    // Detached: a connect may wait for minutes, and the supervisor exits when
    // the server does, whatever is still waiting.
    std::thread([self, id = n.id, call = std::move(p.call)] {
      self->respond(id, call());
      self->blocking_calls.fetch_sub(1);
    }).detach();
  }

  void loop(const std::shared_ptr<State>& self) {
    std::vector<char> buffer(std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
    auto* req = reinterpret_cast<seccomp_notif*>(buffer.data());
    for (;;) {
      std::array<pollfd, 2> fds{{{listener.get(), POLLIN, 0}, {stop.get(), POLLIN, 0}}};
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) return;  // POLLHUP: no process of the sandbox is left
      std::memset(buffer.data(), 0, buffer.size());
      if (::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
        if (errno == EINTR || errno == ENOENT) continue;
        return;
      }
      Notice n{req->id, static_cast<pid_t>(req->pid), req->data.nr, {}};
      std::copy(std::begin(req->data.args), std::end(req->data.args), n.args.begin());
      handle(n, self);
    }
  }
};

std::expected<HostBlock, Error> hostBlockFor(const SandboxPolicy& policy) {
  if (auto valid = validatePolicy(policy); !valid) return std::unexpected(valid.error());
  HostBlock block;
  for (const std::string& text : policy.allow) {
    if (auto entry = egress::parseAllowEntry(text)) block.allow.push_back(std::move(*entry));
  }
  for (std::uint16_t port : policy.own_ports) {
    block.own.listeners.push_back({egress::IpAddress{}, port, true});
  }
  if (!policy.own_ports.empty()) block.own.local_addresses = egress::hostAddresses();
  return block;
}

std::expected<void, Error> socketNotifyAvailable() {
  std::uint32_t action = SECCOMP_RET_USER_NOTIF;
  if (::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0)
    return std::unexpected(sysError("seccomp user notification (SECCOMP_RET_USER_NOTIF)"));
  // EBADF: the call exists and looked at its arguments.
  if (::syscall(SYS_pidfd_getfd, -1, 0, 0) == 0 || errno != EBADF)
    return std::unexpected(sysError("pidfd_getfd"));
  return {};
}

std::expected<void, Error> handOverListener(UniqueFd listener, int to_init) {
  // Forked from the non-dumpable init: the supervisor may take a descriptor
  // from a dumpable process of its own uid only. exec resets this anyway.
  if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
    return std::unexpected(sysError("PR_SET_DUMPABLE for the listener's hand-over"));
  const int number = listener.get();
  char ack = 0;
  if (!writeAll(to_init, &number, sizeof number) || !readAll(to_init, &ack, 1))
    return std::unexpected(Error{"the supervisor did not take the seccomp listener"});
  return {};
}

bool relayListener(int from_server, pid_t server, int to_supervisor) {
  int number = -1;
  if (!readAll(from_server, &number, sizeof number)) return false;
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, server, 0)));
  const int fds[] = {pidfd.get()};
  char ack = 0;
  return pidfd.valid() && sendWithFds(to_supervisor, &number, sizeof number, fds) &&
         readAll(to_supervisor, &ack, 1) && writeAll(from_server, &ack, 1);
}

std::expected<UniqueFd, Error> receiveListener(int from_init) {
  int number = -1;
  std::vector<UniqueFd> fds;
  const ssize_t n = receiveWithFds(from_init, &number, sizeof number, fds);
  if (n <= 0 || fds.size() != 1) return std::unexpected(Error{"no seccomp listener came"});
  auto* rest = reinterpret_cast<char*>(&number) + n;
  if (!readAll(from_init, rest, sizeof number - static_cast<std::size_t>(n)))
    return std::unexpected(Error{"no seccomp listener came"});
  UniqueFd listener(static_cast<int>(::syscall(SYS_pidfd_getfd, fds[0].get(), number, 0)));
  if (!listener.valid()) return std::unexpected(sysError("take the server's seccomp listener"));
  // A listener answers ENOENT for an id it never issued; anything else is not one.
  std::uint64_t id = 0;
  if (::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 || errno != ENOENT)
    return std::unexpected(
        Error{"the descriptor the server handed over is not a seccomp listener"});
  if (!writeAll(from_init, "k", 1)) return std::unexpected(sysError("acknowledge the listener"));
  return listener;
}

SocketGuard::SocketGuard(UniqueFd listener, HostBlock block,
                         std::function<void(const Refusal&)> refused)
    : state_(std::make_shared<State>()) {
  state_->listener = std::move(listener);
  state_->stop.reset(::eventfd(0, EFD_CLOEXEC));
  state_->block = std::move(block);
  state_->refused = std::move(refused);
  (void)::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &state_->sizes);
  std::thread([self = state_] { self->loop(self); }).detach();
}

SocketGuard::~SocketGuard() {
  const std::uint64_t one = 1;
  if (state_->stop.valid()) (void)::write(state_->stop.get(), &one, sizeof one);
}

}  // namespace mcpgate::sandbox
