#pragma once

// The two eras of MCP a message or a peer can belong to.
//
// Legacy (2025-03-26 .. 2025-11-25): sessions (Mcp-Session-Id), the initialize
// handshake, server-to-client requests. Modern (2026-07-28 on): no session;
// every request carries its protocol version, client capabilities and client
// info in params._meta; server/discover; multi round-trip requests
// (InputRequiredResult) instead of server-to-client requests.

#include <cstdint>
#include <string_view>

namespace mcpgate::gateway {

enum class Era : std::uint8_t {
  kUnknown,  // not decided yet (a peer not probed, a message not classified)
  kLegacy,
  kModern,
};

// What a server's config says of its era (`protocol:` per server).
enum class EraChoice : std::uint8_t { kAuto, kLegacy, kModern };

[[nodiscard]] constexpr std::string_view eraName(Era era) {
  switch (era) {
    case Era::kLegacy: return "legacy";
    case Era::kModern: return "modern";
    case Era::kUnknown: break;
  }
  return "unknown";
}

namespace jsonrpc {
// The modern revisions this gateway speaks, newest first.
inline constexpr std::string_view kModernProtocolVersions[] = {"2026-07-28"};
// Error codes the 2026-07-28 revision defines.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;
}  // namespace jsonrpc

}  // namespace mcpgate::gateway
