#pragma once

// A remote server spoken to in the modern era (2026-07-28), per message: a
// request or notification whose `_meta` names a modern protocol version (a
// modern client's, passed through, or one the era bridge wrote for a legacy
// client) is posted with the request metadata headers the Streamable HTTP
// transport requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and no
// Mcp-Session-Id; a modern server's refusal (a 4xx whose body is a JSON-RPC
// error: HeaderMismatch, -32022, -32601 on 404) is that request's answer.
// Spec: basic/transports/streamable-http.mdx "Request Metadata" and
// "Backward Compatibility". Pure: no I/O, no Beast.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/mcp/message.h"
#include "gateway/modern/front.h"

namespace mcpgate::gateway::remote {

struct ModernHeaders {
  std::string protocol_version;     // MCP-Protocol-Version: the body's, a version we speak
  std::string method;               // Mcp-Method
  std::optional<std::string> name;  // Mcp-Name (tools/call, prompts/get, resources/read)
  // Mcp-Param-{Name}: value, for a tools/call of a tool with x-mcp-header annotations.
  std::vector<std::pair<std::string, std::string>> params;
};

// The x-mcp-header annotations of the tools a remote listed, by tool name.
using ToolParamHeaders = std::map<std::string, std::vector<modern::ParamHeader>>;

// Notes the annotations of each tool in a tools/list answer (a tool whose
// annotations break the spec's rules gets none; its calls are the server's to refuse).
void learnParamHeaders(const mcp::Message& answer, ToolParamHeaders& tools);

// The Mcp-Param-* headers of a modern tools/call (streamable-http.mdx "Custom
// Headers from Tool Parameters"): each annotated argument present and not
// null, as a string, integer or boolean, in its header form.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> paramHeadersOf(
    const mcp::Message& message, const ToolParamHeaders& tools);

// The headers of `message` when it is a modern request or notification;
// nullopt for anything else (legacy traffic keeps its session headers). A
// message whose method or version could not be a header value is not
// modern here: the server's own check refuses it.
[[nodiscard]] std::optional<ModernHeaders> modernHeadersOf(const mcp::Message& message);

// A modern request's answer from a non-2xx status: the body's JSON-RPC error
// as the response to `id` (the server's code and message reach the client,
// and the era probe reads them). nullopt for 401, 403 and 5xx (the gateway
// reports those itself) and for a body that is not a JSON-RPC error.
[[nodiscard]] std::optional<nlohmann::json> modernErrorAnswer(unsigned status,
                                                              std::string_view body,
                                                              const nlohmann::json& id);

// The requestId of a modern notifications/cancelled, as an id key: on
// Streamable HTTP the cancellation is closing that request's stream, and the
// notification itself is not sent. Empty for any other message.
[[nodiscard]] std::string cancelledRequest(const mcp::Message& message);

}  // namespace mcpgate::gateway::remote
