#pragma once

// UTS namespace: the server sees its own hostname ("mcp-<server>"), never the host's.

#include <expected>
#include <string>

#include "sandbox/error.h"

namespace mcpgate::sandbox {

// "mcp-<server>" with characters a hostname cannot hold replaced by '-'.
[[nodiscard]] std::string defaultHostname(const std::string& server_name);

[[nodiscard]] std::expected<void, Error> setHostname(const std::string& name);

}  // namespace mcpgate::sandbox
