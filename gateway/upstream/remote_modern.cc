#include "gateway/upstream/remote_modern.h"

#include <algorithm>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/modern/front.h"

namespace mcpgate::gateway::remote {

using nlohmann::json;

namespace {

bool plainHeaderValue(std::string_view value) {
  return !value.empty() && std::ranges::all_of(value, [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u <= 0x7e;
  });
}

const json& paramsOf(const json& message) {
  static const json kNone = json::object();
  auto params = message.is_object() ? message.find("params") : message.end();
  return params != message.end() && params->is_object() ? *params : kNone;
}

}  // namespace

std::optional<ModernHeaders> modernHeadersOf(const mcp::Message& message) {
  if (message.method.empty() || message.value.is_null()) return std::nullopt;
  const auto version = modern::declaredVersion(message.value);
  // Only a version the gateway speaks becomes a header: never text a client
  // could use to inject another header line.
  if (!version || std::ranges::find(jsonrpc::kModernProtocolVersions, *version) ==
                      std::end(jsonrpc::kModernProtocolVersions)) {
    return std::nullopt;
  }
  if (!plainHeaderValue(message.method)) return std::nullopt;
  ModernHeaders headers{std::string(*version), message.method, std::nullopt};
  if (const std::string_view source = modern::nameSource(message.method); !source.empty()) {
    const json& params = paramsOf(message.value);
    auto name = params.find(source);
    if (name != params.end() && name->is_string()) {
      headers.name = modern::encodeHeaderValue(name->get_ref<const std::string&>());
    }
  }
  return headers;
}

std::optional<json> modernErrorAnswer(unsigned status, std::string_view body, const json& id) {
  if (status < 400 || status >= 500 || status == 401 || status == 403) return std::nullopt;
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  auto error = parsed.find("error");
  if (error == parsed.end() || !error->is_object()) return std::nullopt;
  auto code = error->find("code");
  if (code == error->end() || !code->is_number_integer()) return std::nullopt;
  // The server may leave the id null (it refused before reading the body):
  // the answer is to the request the gateway sent.
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(*error)}};
}

std::string cancelledRequest(const mcp::Message& message) {
  if (message.method != "notifications/cancelled" || !message.value.is_object()) return {};
  const json& params = paramsOf(message.value);
  auto id = params.find("requestId");
  if (id == params.end() || !(id->is_string() || id->is_number_integer())) return {};
  return jsonrpc::idKey(*id);
}

}  // namespace mcpgate::gateway::remote
