#pragma once

// Network namespace: with `network: none` the server gets its own namespace
// whose only interface is loopback (up, so servers that bind 127.0.0.1 for
// themselves still work); nothing of the host's network is reachable.

#include <expected>

#include "sandbox/error.h"

namespace mcpgate::sandbox {

[[nodiscard]] std::expected<void, Error> bringUpLoopback();

}  // namespace mcpgate::sandbox
