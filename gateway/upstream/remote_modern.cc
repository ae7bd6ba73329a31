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
  ModernHeaders headers{std::string(*version), message.method, std::nullopt, {}};
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

void learnParamHeaders(const mcp::Message& answer, ToolParamHeaders& tools) {
  auto result = answer.value.find("result");
  if (result == answer.value.end() || !result->is_object()) return;
  auto listed = result->find("tools");
  if (listed == result->end() || !listed->is_array()) return;
  for (const json& tool : *listed) {
    if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
    const std::string& name = tool["name"].get_ref<const std::string&>();
    auto schema = tool.find("inputSchema");
    auto annotated = schema != tool.end() ? modern::paramHeaders(*schema) : std::nullopt;
    if (annotated && !annotated->empty()) {
      tools[name] = std::move(*annotated);
    } else {
      tools.erase(name);
    }
  }
}

std::vector<std::pair<std::string, std::string>> paramHeadersOf(const mcp::Message& message,
                                                                const ToolParamHeaders& tools) {
  std::vector<std::pair<std::string, std::string>> out;
  if (message.method != "tools/call" || message.tool.empty()) return out;
  auto annotated = tools.find(message.tool);
  if (annotated == tools.end()) return out;
  const json& params = paramsOf(message.value);
  auto arguments = params.find("arguments");
  if (arguments == params.end() || !arguments->is_object()) return out;
  for (const modern::ParamHeader& header : annotated->second) {
    const json* at = &*arguments;
    for (const std::string& key : header.path) {
      auto next = at->is_object() ? at->find(key) : at->end();
      at = next != at->end() ? &*next : nullptr;
      if (at == nullptr) break;
    }
    if (at == nullptr || at->is_null()) continue;
    if (at->is_string()) {
      out.emplace_back(header.name, modern::encodeHeaderValue(at->get_ref<const std::string&>()));
    } else if (at->is_boolean()) {
      out.emplace_back(header.name, at->get<bool>() ? "true" : "false");
    } else if (at->is_number_integer()) {
      out.emplace_back(header.name, at->dump());
    }
  }
  return out;
}

std::string cancelledRequest(const mcp::Message& message) {
  if (message.method != "notifications/cancelled" || !message.value.is_object()) return {};
  const json& params = paramsOf(message.value);
  auto id = params.find("requestId");
  if (id == params.end() || !(id->is_string() || id->is_number_integer())) return {};
  return jsonrpc::idKey(*id);
}

}  // namespace mcpgate::gateway::remote
