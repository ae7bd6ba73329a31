#pragma once

// One JSON-RPC message, parsed once where it enters the gateway (an HTTP POST,
// a stdio line from a client, a line or SSE event from an upstream) and
// carried from there through the session, the filter chain and the upstream.
// Its facts (kind, id, method, tool) are derived here, once; later stops read
// the fields and never classify or parse again. The era is filled by whoever
// knows it (the front or the upstream); the effective policy by the filter
// chain, the first time a filter needs it.

#include <cstdint>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/mcp/era.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/mcp/message_context.h"

namespace mcpgate::gateway {

struct EffectivePolicy;  // gateway/guard/policy.h

namespace mcp {

class Message {
 public:
  Message() = default;
  // Frees `value` from its leaves up (jsonrpc::release): cheaper than
  // nlohmann's own destruction, which moves every element through a stack.
  ~Message();
  Message(Message&&) noexcept = default;
  Message& operator=(Message&&) noexcept = default;
  Message(const Message&) = default;
  Message& operator=(const Message&) = default;

  // A parsed value and the facts of it. `text` is the sender's own bytes for
  // it, or empty when they must not be forwarded as written (see `text`).
  [[nodiscard]] static Message of(nlohmann::json value, Direction direction,
                                  std::string text = {});

  // A message the gateway writes itself (an error response, a cancellation):
  // its text and the facts the upstream needs, with no value to filter.
  [[nodiscard]] static Message made(std::string text, jsonrpc::Kind kind, Direction direction,
                                    nlohmann::json id = nullptr, std::string method = {});

  // The facts of a message, derived once from its members.
  jsonrpc::Kind kind = jsonrpc::Kind::kInvalid;
  Direction direction = Direction::kToServer;
  Era era = Era::kUnknown;
  // The id member (null when it has none), and for requests and responses
  // its JSON text, the key of maps of pending requests (so 1 and "1" differ).
  nlohmann::json id;
  std::string id_key;
  std::string method;  // requests and notifications
  // For a tools/call request, params.name when it is a string (the tool
  // policy and DLP are resolved for); empty for every other message.
  std::string tool;
  // Once resolved by the filter chain: the effective policy of (server,
  // tool, client) for this message, owned by the chain's policy table.
  const EffectivePolicy* policy = nullptr;

  // The parsed message (null for a message the gateway made as text).
  nlohmann::json value;
  // The text to forward: the sender's bytes as received, kept while they say
  // exactly what was checked; empty once they must not be forwarded as they
  // are (a filter changed the value, an object repeated a key, the message
  // was one of a batch), and then `wire()` serialises the value.
  std::string text;

  [[nodiscard]] bool isRequest() const { return kind == jsonrpc::Kind::kRequest; }
  [[nodiscard]] bool isResponse() const { return kind == jsonrpc::Kind::kResponse; }
  [[nodiscard]] bool isNotification() const { return kind == jsonrpc::Kind::kNotification; }

  // The text to send on: `text` if set, else the value serialised. The
  // result is also kept in `text`.
  std::string& wire();
  // The same, as one line (stdio framing: no raw CR or LF).
  std::string& line();
};

// One body a peer sent: one message, or the messages of a batch.
struct Body {
  std::vector<Message> messages;
  bool batch = false;
  bool duplicate_keys = false;  // an object repeated a key (the value holds the last)
};

// Parses one body into its messages, refusing nesting deeper than
// max_depth. A single message keeps `text` as its own unless an object in it
// repeated a key; the messages of a batch come without text.
[[nodiscard]] std::expected<Body, jsonrpc::ParseError> parseBody(std::string text,
                                                                 std::uint32_t max_depth,
                                                                 Direction direction);

}  // namespace mcp
}  // namespace mcpgate::gateway
