#pragma once

// `mcpgate import FILE`: an mcpgate config, as YAML for review, from a desktop
// client's config (Claude Desktop or Cursor `mcpServers`, VS Code `servers`),
// with the sandbox binds its servers' paths need (config/visibility.h).
// Secrets stay out of the text: environment and header values become ${VAR}
// references for the gateway's environment.

#include <string>

#include "config/config.h"

namespace mcpgate::config {

[[nodiscard]] std::string importedYaml(const Config& config);

}  // namespace mcpgate::config
