#pragma once

// Network namespace: with `network: none` the server gets its own namespace
// whose only interface is loopback (up, so servers that bind 127.0.0.1 for
// themselves still work); nothing of the host's network is reachable.
//
// With `network: allowlist` the namespace is the same, plus one way out: a
// socket listening on 127.0.0.1:kEgressProxyPort inside it, made by the
// sandbox's init and passed (SCM_RIGHTS) through the supervisor to the
// gateway, which accepts on it and runs its egress proxy there. The sandbox
// gets no interface, route or address of the host's: a connection it makes
// is the gateway's to decide on.

#include <cstdint>
#include <expected>

#include "sandbox/error.h"
#include "sandbox/fd.h"
#include "sandbox/fd_passing.h"  // sendDescriptor: how the listener travels

namespace mcpgate::sandbox {

inline constexpr std::uint16_t kEgressProxyPort = 3128;

[[nodiscard]] std::expected<void, Error> bringUpLoopback();

// Listens on 127.0.0.1:kEgressProxyPort in this process's network namespace.
[[nodiscard]] std::expected<UniqueFd, Error> openEgressListener();

}  // namespace mcpgate::sandbox
