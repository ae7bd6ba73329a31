#pragma once

// The servers of a config file: mcpgate's `servers:`, the `mcpServers:` of
// Claude Desktop and Cursor, and the `servers:` of VS Code's mcp.json (JSON
// files read `servers` in the clients' format, with their extra keys).

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/sandbox_section.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

// The words of a server's `protocol:` key: auto, legacy, modern.
[[nodiscard]] std::optional<gateway::EraChoice> parseProtocolChoice(std::string_view word);
[[nodiscard]] std::string_view protocolChoiceName(gateway::EraChoice choice);

// `client_format`: the clients' JSON format (`type`, `disabled`, keys the
// gateway ignores, ${env:NAME} and the refusal of ${input:ID} in args).
[[nodiscard]] std::expected<void, Error> loadServersSection(
    const detail::Reader& reader, const detail::Entry& e, bool client_format,
    std::map<std::string, ServerConfig>& servers, std::map<std::string, ServerExtra>& extras);

}  // namespace mcpgate::config
