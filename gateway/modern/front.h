#pragma once

// The modern (2026-07-28) front: what the gateway checks on a request from a
// modern client before anything else sees it, and what it adds to results it
// returns to one. Pure: JSON in, JSON or an error out; no I/O, no gateway
// state. The HTTP endpoint and `mcpgate stdio` call it.
//
// Spec: basic/versioning.mdx (-32022), basic/transports/streamable-http.mdx
// (request metadata headers, -32020, Base64 sentinel), server/discover.mdx,
// server/utilities/caching.mdx (ttlMs, cacheScope).

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/mcp/era.h"

namespace mcpgate::gateway::modern {

using nlohmann::json;

// The `_meta` keys of the modern envelope.
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view kMetaClientCapabilities =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view kMetaSubscriptionId = "io.modelcontextprotocol/subscriptionId";

// Every version a client may name to this gateway: the modern ones (served
// statelessly) and the legacy ones (served in sessions after initialize),
// newest first. What -32022 lists in data.supported.
[[nodiscard]] std::vector<std::string> supportedVersions();
[[nodiscard]] bool isModernVersion(std::string_view version);

// The protocol version a message's params._meta declares, or nullopt.
[[nodiscard]] std::optional<std::string_view> declaredVersion(const json& message);

// Whether a POSTed message belongs to the modern era: its envelope names a
// protocol version, or (an envelope missing) its MCP-Protocol-Version header
// names a modern one (a legacy client's initialize has neither).
[[nodiscard]] Era eraOf(const json& message, std::string_view header_version);

// The request metadata headers of one HTTP POST. Absent headers are nullopt;
// params holds each Mcp-Param-{Name} as (Name, value), Name as sent.
struct RequestHeaders {
  std::optional<std::string_view> protocol_version;
  std::optional<std::string_view> method;
  std::optional<std::string_view> name;
  std::vector<std::pair<std::string_view, std::string_view>> params;
};

// A refusal of the modern front: HTTP status, JSON-RPC code, a message that
// says what to fix, and the error's data (null when none).
struct FrontError {
  unsigned http_status = 400;
  int code = 0;
  std::string message;
  json data = nullptr;
};

// {"jsonrpc":"2.0","id":id,"error":{...}} for a refusal.
[[nodiscard]] std::string errorBody(const FrontError& error, const json& id);

// -32022 for `requested`, with data.supported (the modern versions, as
// server/discover lists them) and data.requested.
[[nodiscard]] FrontError unsupportedVersion(std::string_view requested);

// The client capabilities that a server's request to the client (what an
// InputRequiredResult would embed) needs and `declared` (the modern
// request's clientCapabilities) lacks, in the ClientCapabilities shape of
// -32021's data.requiredCapabilities; nullopt when all are declared, or the
// method asks the client nothing. sampling/createMessage needs sampling,
// elicitation/create elicitation.form or .url by its mode (a bare
// `elicitation: {}` counts as form, its 2025 meaning), roots/list roots.
[[nodiscard]] std::optional<json> missingCapabilities(std::string_view method, const json& params,
                                                      const json& declared);

// MissingRequiredClientCapability (-32021, HTTP 400) for `required`.
[[nodiscard]] FrontError missingCapability(json required, std::string_view asked);

// Methods 2026-07-28 removed: a modern request for one gets 404 and -32601.
[[nodiscard]] bool isRemovedMethod(std::string_view method);

// Whether a notifications/message of `level` may go to the client of modern
// request `message`: only when its envelope names a logLevel, and the
// message is at least that severe.
[[nodiscard]] bool logWanted(const json& message, std::string_view level);

// Where `Mcp-Name` comes from for a method: "name", "uri", or "" when the
// method has no Mcp-Name.
[[nodiscard]] std::string_view nameSource(std::string_view method);

// A header value back from the Base64 sentinel form (=?base64?...?=), or as
// it is; nullopt when it is not a valid header value (control characters,
// bad Base64, a sentinel that is not valid UTF-8 text).
[[nodiscard]] std::optional<std::string> decodeHeaderValue(std::string_view value);
// The header form of a value, as a client sends it: as it is when it is plain
// visible ASCII without leading or trailing whitespace and not shaped like the
// sentinel, else the Base64 sentinel of its UTF-8 bytes.
[[nodiscard]] std::string encodeHeaderValue(std::string_view value);

// `x-mcp-header` annotations of a tool's inputSchema: (header Name, property
// path). nullopt when an annotation breaks the spec's constraints (the tool
// is then unusable over HTTP, as clients must drop it).
struct ParamHeader {
  std::string name;
  std::vector<std::string> path;
};
[[nodiscard]] std::optional<std::vector<ParamHeader>> paramHeaders(const json& input_schema);

// The checks of a modern request POST, in the SDK's order: the header's
// version against the body's (-32020), the version supported (-32022), then
// Mcp-Method and Mcp-Name present and equal to the body (-32020). A
// notification is checked for its version only. `annotated`: the tool's
// x-mcp-header annotations when the request is a tools/call of a tool the
// gateway has seen listed (Mcp-Param-* are then checked too); nullptr when
// unknown.
[[nodiscard]] std::expected<void, FrontError> checkRequest(
    const json& message, const RequestHeaders& headers,
    const std::vector<ParamHeader>* annotated = nullptr);

// The checks of a modern request on a transport without request headers
// (stdio): a supported version (-32022) and a complete envelope.
[[nodiscard]] std::expected<void, FrontError> checkEnvelope(const json& message);

// What server/discover answers for one server behind the gateway.
struct ServerOffer {
  std::string name;              // the server's name in the gateway config
  json capabilities = json::object();  // what the server declared (initialize or discover)
  json server_info = nullptr;    // its serverInfo, if known
  std::string instructions;
};

// The gateway's server/discover result for one server: the modern versions it
// serves, the capabilities it passes through, the server's identity. The
// client-facing capabilities drop what the gateway does not carry to a modern
// client (the legacy `logging` setLevel has no modern form; completions,
// tools, resources, prompts, extensions pass).
[[nodiscard]] json discoverResult(const ServerOffer& offer, std::string_view gateway_version);
// The same over several servers (/mcp): a capability is offered when one
// server offers it; instructions are each server's, prefixed by its name.
[[nodiscard]] json discoverResult(const std::vector<ServerOffer>& offers,
                                  std::string_view gateway_version);

// Methods whose result is a CacheableResult (ttlMs, cacheScope).
[[nodiscard]] bool isCacheable(std::string_view method);

// Makes a result fit for a modern client: `resultType` "complete" when the
// server left it out (a legacy server's), ttlMs and cacheScope on cacheable
// methods when missing (0 and "private": the gateway cannot vouch for
// anything longer), and cacheScope "private" when `shaped` (per-client
// policy or DLP may have changed it, so no shared cache may hand it to
// another client). `response` is a whole JSON-RPC response; errors pass.
void stampResult(json& response, std::string_view method, bool shaped);

}  // namespace mcpgate::gateway::modern
