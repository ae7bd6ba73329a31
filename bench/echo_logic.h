#pragma once

// The echo MCP server's answers, shared by the stdio server (mcp_echo_server)
// and the bare HTTP server (mcp_bare_server) so both do the same work per
// message. A hand-written scanner, not a DOM: the text argument of tools/call
// is copied into the answer still JSON-escaped, so a 1 MiB echo costs a scan
// and one copy.

#include <optional>
#include <string>
#include <string_view>

namespace mcpgate::bench {

struct Handled {
  bool answered = false;    // something was appended to `out`
  bool initialize = false;  // the message was an initialize request
};

// Appends the response to one JSON-RPC message (no trailing newline) to `out`;
// appends nothing for notifications and responses. Never throws on bad input:
// unparseable text gets a -32700 error with id null.
[[nodiscard]] Handled appendAnswer(std::string_view line, std::string& out);

// The same as a fresh string; nullopt for notifications and responses.
[[nodiscard]] std::optional<std::string> answer(std::string_view line);

}  // namespace mcpgate::bench
