#include "gateway/modern/front.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ranges>
#include <set>

#include "common/encoding.h"
#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway::modern {

namespace {

constexpr std::string_view kSentinelPrefix = "=?base64?";
constexpr std::string_view kSentinelSuffix = "?=";

// RFC 4648 §4 (standard alphabet, padded): what the Base64 sentinel uses.
std::optional<std::string> decodeBase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xffU));
    }
  }
  return out;
}

bool validUtf8(std::string_view text) {
  try {
    (void)json(std::string(text)).dump();
  } catch (const json::exception&) {
    return false;
  }
  return true;
}

// RFC 9110 field values: visible ASCII, space and tab.
bool plainHeaderValue(std::string_view value) {
  return std::ranges::all_of(value, [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u == '\t' || (u >= 0x20 && u <= 0x7e);
  });
}

// RFC 9110 tchar.
bool isToken(std::string_view name) {
  constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::ranges::all_of(name, [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kExtra.find(c) != std::string_view::npos;
  });
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

FrontError mismatch(std::string message) {
  return FrontError{400, jsonrpc::kHeaderMismatch, "Header mismatch: " + std::move(message)};
}

// A header value and a body value agree: strings exactly, integers
// numerically (the spec's "42.0 equals 42"), booleans as true/false.
bool sameValue(std::string_view header, const json& body) {
  if (body.is_string()) return header == body.get_ref<const std::string&>();
  if (body.is_boolean()) return header == (body.get<bool>() ? "true" : "false");
  if (body.is_number()) {
    double parsed = 0;
    const auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), parsed);
    if (ec != std::errc() || end != header.data() + header.size()) return false;
    return parsed == body.get<double>();
  }
  return false;
}

void collectAnnotations(const json& schema, std::vector<std::string>& path,
                        std::vector<ParamHeader>& out, bool& valid) {
  if (!schema.is_object()) return;
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return;
  for (const auto& [key, sub] : props->items()) {
    path.push_back(key);
    if (sub.is_object()) {
      if (auto h = sub.find("x-mcp-header"); h != sub.end()) {
        const auto type = sub.value("type", json(nullptr));
        const bool primitive = type == "string" || type == "integer" || type == "boolean";
        if (!h->is_string() || !isToken(h->get_ref<const std::string&>()) || !primitive) {
          valid = false;
        } else {
          out.push_back({h->get<std::string>(), path});
        }
      }
      collectAnnotations(sub, path, out, valid);
    }
    path.pop_back();
  }
}

// Annotations anywhere but a chain of `properties` make the tool invalid.
bool annotatedOffPath(const json& value, bool on_path) {
  if (value.is_object()) {
    if (!on_path && value.contains("x-mcp-header")) return true;
    for (const auto& [key, sub] : value.items()) {
      if (key == "properties" && on_path && sub.is_object()) {
        for (const auto& [name, prop] : sub.items()) {
          if (annotatedOffPath(prop, true)) return true;
        }
      } else if (key != "x-mcp-header" && annotatedOffPath(sub, false)) {
        return true;
      }
    }
  } else if (value.is_array()) {
    for (const auto& item : value) {
      if (annotatedOffPath(item, false)) return true;
    }
  }
  return false;
}

const json* valueAt(const json& root, const std::vector<std::string>& path) {
  const json* at = &root;
  for (const auto& key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at->is_null() ? nullptr : at;
}

std::expected<void, FrontError> checkParamHeaders(const json& message,
                                                  const RequestHeaders& headers,
                                                  const std::vector<ParamHeader>& annotated) {
  static const json empty = json::object();
  const json* arguments = &empty;  // in place, not a copy of the arguments
  if (auto params = message.find("params"); params != message.end() && params->is_object()) {
    if (auto found = params->find("arguments"); found != params->end()) arguments = &*found;
  }
  for (const auto& param : annotated) {
    std::optional<std::string_view> sent;
    for (const auto& [name, value] : headers.params) {
      if (lower(name) == lower(param.name)) sent = value;
    }
    const json* body = valueAt(*arguments, param.path);
    const std::string header = "Mcp-Param-" + param.name;
    if (body == nullptr) {
      if (sent) return std::unexpected(mismatch(header + " is sent but the argument is absent"));
      continue;
    }
    if (!sent) return std::unexpected(mismatch(header + " is required: the argument is present"));
    auto decoded = decodeHeaderValue(*sent);
    if (!decoded) return std::unexpected(mismatch(header + " holds invalid characters"));
    if (!sameValue(*decoded, *body)) {
      return std::unexpected(mismatch(header + " does not match the argument's value"));
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> supportedVersions() {
  std::vector<std::string> out;
  for (auto v : jsonrpc::kModernProtocolVersions) out.emplace_back(v);
  for (auto v : jsonrpc::kProtocolVersions | std::views::reverse) out.emplace_back(v);
  return out;
}

bool isModernVersion(std::string_view version) {
  // Every revision from 2026-07-28 on is modern, known to this gateway or not:
  // the dates compare as text.
  return version.size() == 10 && version >= std::string_view("2026-07-28");
}

namespace {

// params._meta of a message when it is an object, else null.
const json* metaOf(const json& message) {
  if (!message.is_object()) return nullptr;
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return nullptr;
  auto meta = params->find("_meta");
  if (meta == params->end() || !meta->is_object()) return nullptr;
  return &*meta;
}

std::optional<std::string_view> versionIn(const json* meta) {
  if (meta == nullptr) return std::nullopt;
  auto version = meta->find(kMetaProtocolVersion);
  if (version == meta->end() || !version->is_string()) return std::nullopt;
  return std::string_view(version->get_ref<const std::string&>());
}

}  // namespace

std::optional<std::string_view> declaredVersion(const json& message) {
  return versionIn(metaOf(message));
}

Era eraOf(const json& message, std::string_view header_version) {
  if (!message.is_object()) return Era::kUnknown;
  if (auto declared = declaredVersion(message)) {
    // A legacy initialize may carry _meta of its own, but never a version in it.
    return Era::kModern;
  }
  if (isModernVersion(header_version)) return Era::kModern;
  return Era::kLegacy;
}

std::string errorBody(const FrontError& error, const json& id) {
  return jsonrpc::errorResponse(id, error.code, error.message, error.data);
}

FrontError unsupportedVersion(std::string_view requested) {
  json modern_versions = json::array();
  for (auto v : jsonrpc::kModernProtocolVersions) modern_versions.push_back(v);
  return FrontError{400, jsonrpc::kUnsupportedProtocolVersion,
                    "Unsupported protocol version: " + std::string(requested),
                    json{{"supported", std::move(modern_versions)}, {"requested", requested}}};
}

std::optional<json> missingCapabilities(std::string_view method, const json& params,
                                        const json& declared) {
  std::string capability;
  std::string mode;  // elicitation's
  if (method == "sampling/createMessage") {
    capability = "sampling";
  } else if (method == "roots/list") {
    capability = "roots";
  } else if (method == "elicitation/create") {
    capability = "elicitation";
    const json requested = params.is_object() ? params.value("mode", json()) : json();
    mode = requested == "url" ? "url" : "form";
  } else {
    return std::nullopt;
  }
  const auto found = declared.find(capability);  // end() when declared is no object
  if (found == declared.end()) {
    json required = {{capability, json::object()}};
    if (!mode.empty()) required[capability][mode] = json::object();
    return required;
  }
  if (mode.empty()) return std::nullopt;
  const bool bare = !found->is_object() || (!found->contains("form") && !found->contains("url"));
  if ((found->is_object() && found->contains(mode)) || (bare && mode == "form")) {
    return std::nullopt;
  }
  return json{{capability, {{mode, json::object()}}}};
}

FrontError missingCapability(json required, std::string_view asked) {
  return FrontError{400, jsonrpc::kMissingRequiredClientCapability,
                    "the server asked the client for " + std::string(asked) +
                        ", which needs a client capability this request did not declare",
                    json{{"requiredCapabilities", std::move(required)}}};
}

bool isRemovedMethod(std::string_view method) {
  return method == "initialize" || method == "ping" || method == "logging/setLevel" ||
         method == "resources/subscribe" || method == "resources/unsubscribe";
}

bool logWanted(const json& message, std::string_view level) {
  constexpr std::string_view kLevels[] = {"debug",    "info",  "notice", "warning",
                                          "error",    "critical", "alert", "emergency"};
  const json* meta = nullptr;
  if (auto params = message.find("params"); params != message.end() && params->is_object()) {
    if (auto m = params->find("_meta"); m != params->end() && m->is_object()) meta = &*m;
  }
  if (meta == nullptr) return false;
  auto wanted = meta->find(kMetaLogLevel);
  if (wanted == meta->end() || !wanted->is_string()) return false;
  auto rank = [&](std::string_view name) {
    return std::ranges::find(kLevels, name) - std::begin(kLevels);
  };
  return rank(level) >= rank(wanted->get_ref<const std::string&>());
}

std::string_view nameSource(std::string_view method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  return {};
}

std::optional<std::string> decodeHeaderValue(std::string_view value) {
  if (!plainHeaderValue(value)) return std::nullopt;
  if (value.size() >= kSentinelPrefix.size() + kSentinelSuffix.size() &&
      value.starts_with(kSentinelPrefix) && value.ends_with(kSentinelSuffix)) {
    auto decoded = decodeBase64(value.substr(
        kSentinelPrefix.size(), value.size() - kSentinelPrefix.size() - kSentinelSuffix.size()));
    if (!decoded || !validUtf8(*decoded)) return std::nullopt;
    return decoded;
  }
  return std::string(value);
}

std::string encodeHeaderValue(std::string_view value) {
  const bool sentinel_shaped = value.starts_with(kSentinelPrefix) && value.ends_with(kSentinelSuffix);
  const bool visible = std::ranges::all_of(value, [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u <= 0x7e;
  });
  if (visible && !sentinel_shaped && !value.starts_with(' ') && !value.ends_with(' ')) {
    return std::string(value);
  }
  // RFC 4648 §4 from the one base64url home: the alphabets differ in two
  // characters, and §4 pads.
  std::string encoded = common::encodeBase64Url(value);
  std::ranges::replace(encoded, '-', '+');
  std::ranges::replace(encoded, '_', '/');
  encoded.append((4 - encoded.size() % 4) % 4, '=');
  return std::string(kSentinelPrefix) + encoded + std::string(kSentinelSuffix);
}

std::optional<std::vector<ParamHeader>> paramHeaders(const json& input_schema) {
  std::vector<ParamHeader> out;
  bool valid = true;
  std::vector<std::string> path;
  collectAnnotations(input_schema, path, out, valid);
  if (!valid || annotatedOffPath(input_schema, true)) return std::nullopt;
  std::set<std::string> seen;
  for (const auto& p : out) {
    if (!seen.insert(lower(p.name)).second) return std::nullopt;
  }
  return out;
}

namespace {

FrontError versionRequired() {
  return FrontError{
      400, jsonrpc::kInvalidParams,
      "params._meta[\"" + std::string(kMetaProtocolVersion) + "\"] is required on every request"};
}

// The version `message` is sent in supported, and a request's envelope
// complete: what every transport checks. `meta` is the message's params._meta
// (metaOf), which holds the version when `body_version`.
std::expected<void, FrontError> checkVersionAndMeta(bool request, const json* meta_of,
                                                    std::string_view version, bool body_version) {
  if (std::ranges::find(jsonrpc::kModernProtocolVersions, version) ==
      std::end(jsonrpc::kModernProtocolVersions)) {
    return std::unexpected(unsupportedVersion(version));
  }
  if (!request) return {};
  if (!body_version) return std::unexpected(versionRequired());
  const json& meta = *meta_of;
  auto capabilities = meta.find(kMetaClientCapabilities);
  if (capabilities == meta.end() || !capabilities->is_object()) {
    return std::unexpected(
        FrontError{400, jsonrpc::kInvalidParams,
                   "params._meta[\"" + std::string(kMetaClientCapabilities) +
                       "\"] is required on every request (an object)"});
  }
  if (auto info = meta.find(kMetaClientInfo); info != meta.end() && !info->is_object()) {
    return std::unexpected(FrontError{
        400, jsonrpc::kInvalidParams,
        "params._meta[\"" + std::string(kMetaClientInfo) + "\"] must be an object"});
  }
  return {};
}

}  // namespace

std::expected<void, FrontError> checkEnvelope(const json& message) {
  const json* meta = metaOf(message);
  const std::optional<std::string_view> body_version = versionIn(meta);
  const bool request = message.is_object() && message.contains("id");
  if (!body_version && request) return std::unexpected(versionRequired());
  return checkVersionAndMeta(request, meta, body_version.value_or(std::string_view()),
                             body_version.has_value());
}

std::expected<void, FrontError> checkRequest(const json& message, const RequestHeaders& headers,
                                             const std::vector<ParamHeader>* annotated) {
  const json* meta = metaOf(message);
  const std::optional<std::string_view> body_version = versionIn(meta);
  const bool request = message.is_object() && message.contains("id");
  if (headers.protocol_version && body_version && *headers.protocol_version != *body_version) {
    return std::unexpected(
        mismatch("MCP-Protocol-Version header value '" + std::string(*headers.protocol_version) +
                 "' does not match body value '" + std::string(*body_version) + "'"));
  }
  const std::string_view version =
      body_version ? *body_version : headers.protocol_version.value_or(std::string_view());
  if (auto checked = checkVersionAndMeta(request, meta, version, body_version.has_value());
      !checked) {
    return checked;
  }
  if (!request) return {};
  if (!headers.protocol_version) {
    return std::unexpected(mismatch("the MCP-Protocol-Version header is required"));
  }
  const std::string& method = message["method"].get_ref<const std::string&>();
  if (!headers.method) return std::unexpected(mismatch("the Mcp-Method header is required"));
  if (*headers.method != method) {
    return std::unexpected(mismatch("Mcp-Method header value '" + std::string(*headers.method) +
                                    "' does not match body value '" + method + "'"));
  }
  if (const std::string_view source = nameSource(method); !source.empty()) {
    // Looked up in place: params holds the whole arguments.
    const json* body_name = nullptr;
    if (auto params = message.find("params"); params != message.end() && params->is_object()) {
      if (auto found = params->find(source); found != params->end() && found->is_string()) {
        body_name = &*found;
      }
    }
    if (!headers.name) return std::unexpected(mismatch("the Mcp-Name header is required"));
    auto decoded = decodeHeaderValue(*headers.name);
    if (!decoded) return std::unexpected(mismatch("Mcp-Name holds invalid characters"));
    if (body_name == nullptr || *decoded != body_name->get_ref<const std::string&>()) {
      return std::unexpected(mismatch(
          "Mcp-Name header value '" + *decoded + "' does not match body value '" +
          (body_name != nullptr ? body_name->get_ref<const std::string&>() : std::string()) +
          "'"));
    }
  }
  if (annotated != nullptr && method == "tools/call") {
    return checkParamHeaders(message, headers, *annotated);
  }
  return {};
}

json discoverResult(const ServerOffer& offer, std::string_view gateway_version) {
  return discoverResult(std::vector<ServerOffer>{offer}, gateway_version);
}

json discoverResult(const std::vector<ServerOffer>& offers, std::string_view gateway_version) {
  // What a modern client can use through the gateway; `logging` (setLevel)
  // is gone in 2026-07-28, and `tasks` is an extension now.
  constexpr std::string_view kPassed[] = {"tools", "resources", "prompts", "completions",
                                          "extensions"};
  json capabilities = json::object();
  std::string instructions;
  for (const auto& offer : offers) {
    if (!offer.capabilities.is_object()) continue;
    for (std::string_view key : kPassed) {
      auto it = offer.capabilities.find(key);
      if (it == offer.capabilities.end() || !it->is_object()) continue;
      json& merged = capabilities[std::string(key)];
      if (!merged.is_object()) merged = json::object();
      merged.merge_patch(*it);
    }
    if (!offer.instructions.empty()) {
      if (!instructions.empty()) instructions += "\n\n";
      if (offers.size() > 1) instructions += offer.name + ": ";
      instructions += offer.instructions;
    }
  }
  json server_info = offers.size() == 1 && offers[0].server_info.is_object()
                         ? offers[0].server_info
                         : json{{"name", "mcpgate"}, {"version", gateway_version}};
  json result = {{"resultType", "complete"},
                 {"supportedVersions", json::array()},
                 {"capabilities", std::move(capabilities)},
                 {"_meta", {{std::string(kMetaServerInfo), std::move(server_info)}}},
                 {"ttlMs", 0},
                 // Who may use which server is per client.
                 {"cacheScope", "private"}};
  for (auto v : jsonrpc::kModernProtocolVersions) result["supportedVersions"].push_back(v);
  if (!instructions.empty()) result["instructions"] = std::move(instructions);
  return result;
}

bool isCacheable(std::string_view method) {
  return method == "server/discover" || method == "tools/list" || method == "prompts/list" ||
         method == "resources/list" || method == "resources/templates/list" ||
         method == "resources/read";
}

void stampResult(json& response, std::string_view method, bool shaped) {
  if (!response.is_object()) return;
  auto result = response.find("result");
  if (result == response.end() || !result->is_object()) return;
  auto type = result->find("resultType");
  if (type == result->end()) {
    (*result)["resultType"] = "complete";
  } else if (*type != "complete") {
    return;  // input_required: not cacheable, no hints
  }
  if (!isCacheable(method)) return;
  auto ttl = result->find("ttlMs");
  if (ttl == result->end() || !ttl->is_number() || ttl->get<double>() < 0) (*result)["ttlMs"] = 0;
  auto scope = result->find("cacheScope");
  if (shaped || scope == result->end() || (*scope != "public" && *scope != "private")) {
    (*result)["cacheScope"] = "private";
  }
}

}  // namespace mcpgate::gateway::modern
