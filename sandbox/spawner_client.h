#pragma once

// The privileged spawner's wire protocol and the gateway's side of it.
//
// mcpgate-spawner (spawner/) runs as root, loads the config itself and
// listens on a unix SOCK_SEQPACKET socket that only the gateway's uid may
// use. The unprivileged gateway asks it for a configured server by name and
// nothing else: the spawner builds the spawn spec (command, sandbox policy,
// environment) from its own copy of the config, so a compromised gateway can
// start only what the operator configured, as strictly as configured.
//
// One connection per server process, one message per packet:
//   gateway -> spawner  "start NAME"     (nothing more: no args, no spec)
//   spawner -> gateway  "started PID FDS" + the descriptors named by FDS, in
//                       order: p pidfd, i stdin, o stdout, e stderr, r report
//                       channel, g egress channel; or "refused REASON"
//   gateway -> spawner  "signal N"       (SIGTERM or SIGKILL only)
//   spawner -> gateway  "exited STATUS"  (the wait status), then it closes.
// The gateway closing the connection kills the process: the connection is
// the process's handle, as the parent pid was for a local spawn.

#include <expected>
#include <string>
#include <string_view>

#include "sandbox/error.h"
#include "sandbox/spawn.h"

namespace mcpgate::sandbox::spawner {

inline constexpr std::size_t kMaxMessage = 512;
inline constexpr std::string_view kStart = "start ";
inline constexpr std::string_view kStarted = "started ";
inline constexpr std::string_view kRefused = "refused ";
inline constexpr std::string_view kSignal = "signal ";
inline constexpr std::string_view kExited = "exited ";

// Asks the spawner listening on `socket_path` to start the configured server
// `name`. The Child's pid is the sandbox supervisor's host pid; signals and
// the exit status travel on Child::control (signalChild, tryReap).
[[nodiscard]] std::expected<Child, Error> startThrough(const std::string& socket_path,
                                                       std::string_view name);

}  // namespace mcpgate::sandbox::spawner
