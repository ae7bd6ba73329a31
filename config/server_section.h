#pragma once

// The servers of a config file: mcpgate's `servers:`, the `mcpServers:` of
// Claude Desktop and Cursor, and the `servers:` of VS Code's mcp.json (JSON
// files read `servers` in the clients' format, with their extra keys).

#include <expected>
#include <map>
#include <string>

#include "config/config.h"
#include "config/sandbox_section.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

// `client_format`: the clients' JSON format (`type`, `disabled`, keys the
// gateway ignores, ${env:NAME} and the refusal of ${input:ID} in args).
[[nodiscard]] std::expected<void, Error> loadServersSection(
    const detail::Reader& reader, const detail::Entry& e, bool client_format,
    std::map<std::string, ServerConfig>& servers, std::map<std::string, ServerExtra>& extras);

}  // namespace mcpgate::config
