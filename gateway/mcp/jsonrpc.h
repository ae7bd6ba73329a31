#pragma once

// JSON-RPC 2.0 framing and classification for MCP messages, and the error
// objects the gateway itself produces.

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace mcpgate::gateway::jsonrpc {

using nlohmann::json;

// Error codes of the errors the gateway makes. -32700..-32600 are JSON-RPC's;
// -32000 to -32003 are in the range JSON-RPC leaves to implementations.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kUpstreamError = -32000;     // server could not start, exited, misbehaved
inline constexpr int kUpstreamTimeout = -32001;   // server did not answer in time
inline constexpr int kRequestCancelled = -32800;  // the client cancelled it (LSP's code)
// -32002 is MCP's "resource not found"; DLP skips it so a client never confuses the two.
inline constexpr int kDlpBlocked = -32003;  // DLP blocked the message (data names the rules)
// Per-tool policy refused the message: a denied tool, a tool held by pinning,
// arguments over the size limit (data.reason says which).
inline constexpr int kPolicyRefused = -32004;

// MCP protocol revisions this gateway speaks; the first is the fallback when a
// client sends no MCP-Protocol-Version header.
inline constexpr std::string_view kProtocolVersions[] = {"2025-03-26", "2025-06-18", "2025-11-25"};
[[nodiscard]] bool isSupportedProtocolVersion(std::string_view version);

enum class Kind { kRequest, kNotification, kResponse, kInvalid };

struct ParseError {
  int code;             // kParseError or kInvalidRequest
  std::string message;  // says what is wrong, for the client
};

// Parses one message body (an object, or an array for a batch), refusing
// nesting deeper than max_depth (gateway/json_reader.cc). `duplicate_keys`, if
// given, is set when an object repeated a key: the value holds the last one,
// as nlohmann and most servers' parsers read it, but a first-wins parser
// would read the text differently, so such a message must be forwarded
// re-serialised, never as written.
[[nodiscard]] std::expected<json, ParseError> parse(std::string_view text, std::uint32_t max_depth,
                                                    bool* duplicate_keys = nullptr);

// The compact text of a value, exactly as value.dump(-1, ' ', false,
// error_handler_t::replace) writes it, faster (gateway/json_writer.cc).
[[nodiscard]] std::string serialize(const json& value);
// The same, appended to `out`; and a string's JSON text (quoted, escaped).
void appendSerialized(const json& value, std::string& out);
void appendString(std::string_view text, std::string& out);

// Classifies one message (not a batch) by its members.
[[nodiscard]] Kind classify(const json& message);
// The same, also pointing `id` at the id member when there is one (even in an
// invalid message) and `method` at the method when it is a string; either may
// be null (mcp::Message::of derives a message's facts in this one pass).
[[nodiscard]] Kind classify(const json& message, const json** id, const json** method);

// A key for maps of pending requests: the id as JSON text, so 1 and "1" differ.
[[nodiscard]] std::string idKey(const json& id);

// Empties `value` from its leaves up: what destroying it costs, without
// nlohmann's destructor moving every element through a heap stack (it still
// takes what is nested deeper than 128 levels).
void release(json& value);

// The tool a tools/call request names (params.name); empty for any other message.
[[nodiscard]] std::string_view toolOf(const json& message);

// {"jsonrpc":"2.0","id":id,"error":{"code","message","data"}} as text.
[[nodiscard]] std::string errorResponse(const json& id, int code, std::string_view message,
                                        const json& data = nullptr);

// Stdio framing: one message per line. JSON text cannot hold a raw newline
// inside a string, so every CR or LF is whitespace and may become a space.
void flattenToLine(std::string& text);

}  // namespace mcpgate::gateway::jsonrpc
