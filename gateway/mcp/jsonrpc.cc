#include "gateway/mcp/jsonrpc.h"

#include <algorithm>
#include <cstring>

namespace mcpgate::gateway::jsonrpc {

bool isSupportedProtocolVersion(std::string_view version) {
  return std::ranges::find(kProtocolVersions, version) != std::end(kProtocolVersions);
}

namespace {

bool isString(const json& value, std::string_view text) {
  return value.is_string() && value.get_ref<const std::string&>() == text;
}

}  // namespace

Kind classify(const json& m) { return classify(m, nullptr, nullptr); }

Kind classify(const json& m, const json** id_out, const json** method_out) {
  if (!m.is_object()) return Kind::kInvalid;
  auto version = m.find("jsonrpc");
  // Compared as strings: a json compared with a literal makes a json of it.
  if (version == m.end() || !isString(*version, "2.0")) return Kind::kInvalid;
  auto id = m.find("id");
  bool has_id = id != m.end();
  if (has_id && id_out != nullptr) *id_out = &*id;
  if (has_id && !id->is_string() && !id->is_number_integer() && !id->is_number_unsigned() &&
      !id->is_null()) {
    return Kind::kInvalid;
  }
  auto method = m.find("method");
  if (method != m.end()) {
    if (!method->is_string()) return Kind::kInvalid;
    if (method_out != nullptr) *method_out = &*method;
    if (!has_id) return Kind::kNotification;
    return id->is_null() ? Kind::kInvalid : Kind::kRequest;
  }
  bool has_result = m.contains("result");
  bool has_error = m.contains("error");
  if (has_id && has_result != has_error) return Kind::kResponse;
  return Kind::kInvalid;
}

std::string idKey(const json& id) { return serialize(id); }

namespace {

// Deeper than this, release leaves the rest to nlohmann (which is iterative).
constexpr int kReleaseDepth = 128;

void releaseFrom(json& value, int depth) {
  if (value.is_object()) {
    auto& members = value.get_ref<json::object_t&>();
    if (depth < kReleaseDepth) {
      for (auto& [key, member] : members) {
        if (member.is_structured()) releaseFrom(member, depth + 1);
      }
    }
    members.clear();
  } else if (value.is_array()) {
    auto& items = value.get_ref<json::array_t&>();
    if (depth < kReleaseDepth) {
      for (auto& item : items) {
        if (item.is_structured()) releaseFrom(item, depth + 1);
      }
    }
    items.clear();
  }
}

}  // namespace

void release(json& value) { releaseFrom(value, 0); }

std::string_view toolOf(const json& message) {
  if (!message.is_object()) return {};
  auto method = message.find("method");
  if (method == message.end() || !isString(*method, "tools/call") || !message.contains("id")) {
    return {};
  }
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) return {};
  auto name = params->find("name");
  if (name == params->end() || !name->is_string()) return {};
  return name->get_ref<const std::string&>();
}

std::string errorResponse(const json& id, int code, std::string_view message, const json& data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  json response = {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
  return response.dump(-1, ' ', false, json::error_handler_t::replace);
}

void flattenToLine(std::string& text) {
  // memchr, not a loop over every byte: the usual message has no line break.
  for (const char c : {'\n', '\r'}) {
    char* at = text.data();
    char* const end = text.data() + text.size();
    while ((at = static_cast<char*>(std::memchr(at, c, static_cast<std::size_t>(end - at))))) {
      *at++ = ' ';
    }
  }
}

}  // namespace mcpgate::gateway::jsonrpc
