#pragma once

// Privileges: the server keeps no capability (effective, permitted,
// inheritable, ambient, bounding), cannot regain any by exec (securebits,
// no_new_privs), and so gains nothing from a setuid binary.

#include <expected>

#include "sandbox/error.h"

namespace mcpgate::sandbox {

[[nodiscard]] std::expected<void, Error> dropCapabilities();
[[nodiscard]] std::expected<void, Error> setNoNewPrivs();

}  // namespace mcpgate::sandbox
