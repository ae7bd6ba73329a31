#pragma once

// Pieces `serve` and `stdio` share.

#include <expected>
#include <memory>
#include <string>
#include <utility>

#include "config/config.h"
#include "sandbox/spawn.h"

namespace mcpgate::gateway {

// Loads the config, reports errors on stderr and applies its log level.
[[nodiscard]] std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path);

[[nodiscard]] bool isLoopbackHost(const std::string& host);

// How a configured server is started: its command under its sandbox policy,
// in its cwd when a bind makes that directory visible inside the sandbox, else
// in the sandbox's HOME. `serve`, `stdio` and `sandbox run` all start it so.
[[nodiscard]] sandbox::SpawnSpec spawnSpecFor(const config::ServerConfig& server);

}  // namespace mcpgate::gateway
