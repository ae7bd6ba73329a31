#pragma once

// Where a message is going and what the gateway knows of it: what filters and
// the audit log are told beside the message itself.

#include <string_view>

namespace mcpgate::gateway {

enum class Direction { kToServer, kToClient };

struct MessageContext {
  std::string_view server;
  std::string_view session;
  Direction direction;
  // For a response: the method of the request it answers, if the gateway
  // knows it (a response carries no method of its own).
  std::string_view request_method = {};
  // The client that owns the session (its name from auth); empty when the
  // gateway runs without auth (loopback, or stdio).
  std::string_view client = {};
  // The tool a tools/call request names, and for its response the tool of the
  // request it answers; empty for every other message.
  std::string_view tool = {};
};

}  // namespace mcpgate::gateway
