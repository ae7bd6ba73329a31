#pragma once

// Which program a server may be, and with which arguments.

#include <expected>
#include <string>
#include <vector>

#include "sandbox/error.h"
#include "sandbox/policy.h"

namespace mcpgate::sandbox {

// Resolves a bare name against the fixed safe PATH, never the caller's own.
[[nodiscard]] std::expected<std::string, Error> resolveCommand(const std::string& command);

// Refuses a command outside the allowlist (names match by name, absolute
// paths exactly) and arguments containing a denied pattern.
[[nodiscard]] std::expected<void, Error> checkCommand(const SandboxPolicy& policy,
                                                      const std::string& command,
                                                      const std::string& resolved,
                                                      const std::vector<std::string>& args);

}  // namespace mcpgate::sandbox
