#pragma once

// The spawn spec of a configured server: its command, sandbox and packages.

#include <expected>
#include <string>

#include "config/config.h"
#include "sandbox/spawn.h"

namespace mcpgate::gateway {

// How a configured server is started: its command under its sandbox policy,
// in its cwd when a bind makes that directory visible inside the sandbox, else
// in the sandbox's HOME, with its installed packages (package_cache.h).
// `serve`, `stdio` and `sandbox run` all start it so. An error names what the
// operator must do first.
[[nodiscard]] std::expected<sandbox::SpawnSpec, std::string> spawnSpecFor(
    const config::Config& config, const config::ServerConfig& server);

}  // namespace mcpgate::gateway
