#pragma once

// `network: host` with its block on: the server shares the host's network,
// but its connects and addressed sends are made by the supervisor.
//
// The server's seccomp filter (seccomp.h, SocketCalls::kNotify) returns
// SECCOMP_RET_USER_NOTIF for connect, sendto with an address, sendmsg and
// sendmmsg. The listener goes to the supervisor, outside the filter, which
// for each call on an IP socket:
//  1. takes the server's socket with pidfd_getfd (the same open file: its
//     options, bound address and O_NONBLOCK stay);
//  2. copies the address (and, for a send, the payload) once from the
//     server's memory, and checks with SECCOMP_IOCTL_NOTIF_ID_VALID that the
//     copy came from the waiting call;
//  3. decides on its copy (egress::decideHost);
//  4. makes the call itself with the copy and answers with its result (a
//     non-blocking connect answers EINPROGRESS, and the server waits on its own
//     socket as usual). A refusal answers EACCES.
// The call never continues in the server after a check: another thread could
// rewrite the address between the check and the kernel's own read.
// Calls on unix and netlink sockets continue untouched (see README: a thread
// that swaps such a descriptor for an IP socket during the check is the
// known gap).

#include <sys/types.h>

#include <expected>
#include <functional>
#include <memory>
#include <string>

#include "egress/allowlist.h"
#include "sandbox/error.h"
#include "sandbox/fd.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

// What the block refuses and what opens it.
struct HostBlock {
  std::vector<egress::AllowEntry> allow;
  egress::OwnEndpoints own;  // the gateway's ports on every address of this host
};

// From the policy: `allow` parsed (addresses and CIDRs; a name is an error),
// `own_ports` on every address the host has now.
[[nodiscard]] std::expected<HostBlock, Error> hostBlockFor(const SandboxPolicy& policy);

// Whether this host lets a supervisor answer calls (seccomp user notification
// with SECCOMP_USER_NOTIF_FLAG_CONTINUE, pidfd_getfd): an error says which
// part is missing.
[[nodiscard]] std::expected<void, Error> socketNotifyAvailable();

// The listener's way from the server to the supervisor, before the server
// execs. The listener cannot be sent with sendmsg from the server (the filter
// holds sendmsg), so the server writes its number, the init adds a pidfd of
// the server, and the supervisor takes the listener with pidfd_getfd.
//   server:     handOverListener(listener, to_init)
//   init:       relayListener(from_server, server, to_supervisor)
//   supervisor: receiveListener(from_init)
[[nodiscard]] std::expected<void, Error> handOverListener(UniqueFd listener, int to_init);
[[nodiscard]] bool relayListener(int from_server, pid_t server, int to_supervisor);
[[nodiscard]] std::expected<UniqueFd, Error> receiveListener(int from_init);

// A refused call, for the log and the audit record.
struct Refusal {
  std::string address;
  std::uint16_t port = 0;
  std::string reason;
};

// Answers every notification on the listener from a thread of its own (and a
// thread per call that may block) until the sandbox's last process is gone.
class SocketGuard {
 public:
  SocketGuard(UniqueFd listener, HostBlock block, std::function<void(const Refusal&)> refused);
  ~SocketGuard();
  SocketGuard(const SocketGuard&) = delete;
  SocketGuard& operator=(const SocketGuard&) = delete;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace mcpgate::sandbox
