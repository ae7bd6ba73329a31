#pragma once

// Pieces `serve` and `stdio` share.

#include <expected>
#include <memory>
#include <string>
#include <utility>

#include "config/config.h"

namespace mcpgate::gateway {

// Loads the config, reports errors on stderr and applies its log level.
[[nodiscard]] std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path);

[[nodiscard]] bool isLoopbackHost(const std::string& host);

}  // namespace mcpgate::gateway
