#pragma once

// What the remote upstream knows of a message it posts, read once from the
// message the session sends (never parsed again), and the SEP-1699 resume
// state of that request's streams.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gateway/mcp/message.h"
#include "gateway/upstream/remote_modern.h"
#include "gateway/upstream/stream_resume.h"

namespace mcpgate::gateway::remote {

// What the gateway needs to know of a message it posts: the facts of the
// message the session sends, read from it (never parsed again here).
struct Outgoing {
  bool request = false;
  nlohmann::json id;  // for a request
  std::string method;
  bool initialize = false;
  bool initialized = false;  // notifications/initialized
  // A modern message: its request metadata headers (it belongs to no session).
  std::optional<ModernHeaders> modern;
  // A notifications/cancelled: the id key it names. Modern, or naming a modern request in
  // flight (the gateway's own cancel carries no envelope), it closes that request's stream.
  std::string cancels;
  mutable StreamResume resume;  // SEP-1699: set by the round trips that read its streams
};

inline Outgoing describe(const mcp::Message& message) {
  Outgoing out;
  if (message.method.empty()) return out;  // a response
  out.method = message.method;
  if (message.isRequest()) {
    out.request = true;
    out.id = message.id;
    out.initialize = out.method == "initialize";
  }
  out.initialized = !out.request && out.method == "notifications/initialized";
  out.modern = modernHeadersOf(message);
  if (out.modern) {
    out.initialize = false;
    out.initialized = false;
  }
  out.cancels = cancelledRequest(message);
  return out;
}

// Whether `message` is the answer to `outgoing` (a response with its id).
inline bool answers(const mcp::Message& message, const Outgoing& outgoing) {
  return outgoing.request && message.value.is_object() && message.id == outgoing.id &&
         message.value.contains("id") && !message.value.contains("method");
}

// The protocol version an initialize result names, when it is one we know: it
// becomes a request header (a remote must not put CR LF into the gateway's requests).
inline std::optional<std::string> negotiatedVersion(const mcp::Message& answer) {
  auto result = answer.value.find("result");
  if (result == answer.value.end() || !result->is_object()) return std::nullopt;
  auto version = result->find("protocolVersion");
  if (version == result->end() || !version->is_string() ||
      !jsonrpc::isSupportedProtocolVersion(version->get_ref<const std::string&>())) {
    return std::nullopt;
  }
  return version->get<std::string>();
}

}  // namespace mcpgate::gateway::remote
