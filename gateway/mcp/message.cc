#include "gateway/mcp/message.h"

#include <iterator>

namespace mcpgate::gateway::mcp {

using nlohmann::json;

Message::~Message() { jsonrpc::release(value); }

Message Message::of(json value, Direction direction, std::string text) {
  Message m;
  m.direction = direction;
  const json* id = nullptr;
  const json* method = nullptr;
  m.kind = jsonrpc::classify(value, &id, &method);
  if (id != nullptr) m.id = *id;
  if (m.kind == jsonrpc::Kind::kRequest || m.kind == jsonrpc::Kind::kResponse) {
    m.id_key = jsonrpc::idKey(*id);
  }
  if (method != nullptr) m.method = method->get_ref<const std::string&>();
  if (m.kind == jsonrpc::Kind::kRequest && m.method == "tools/call") {
    m.tool = std::string(jsonrpc::toolOf(value));
  }
  m.value = std::move(value);
  m.text = std::move(text);
  return m;
}

Message Message::made(std::string text, jsonrpc::Kind kind, Direction direction, json id,
                      std::string method) {
  Message m;
  m.kind = kind;
  m.direction = direction;
  if (kind == jsonrpc::Kind::kRequest || kind == jsonrpc::Kind::kResponse) {
    m.id_key = jsonrpc::idKey(id);
  }
  m.id = std::move(id);
  m.method = std::move(method);
  m.text = std::move(text);
  return m;
}

std::string& Message::wire() {
  if (text.empty()) text = jsonrpc::serialize(value);
  return text;
}

std::string& Message::line() {
  jsonrpc::flattenToLine(wire());
  return text;
}

std::expected<Body, jsonrpc::ParseError> parseBody(std::string text, std::uint32_t max_depth,
                                                   Direction direction) {
  Body body;
  auto parsed = jsonrpc::parse(text, max_depth, &body.duplicate_keys);
  if (!parsed) return std::unexpected(std::move(parsed.error()));
  body.batch = parsed->is_array();
  if (body.batch) {
    body.messages.reserve(parsed->size());
    for (json& element : *parsed) body.messages.push_back(Message::of(std::move(element), direction));
  } else {
    if (body.duplicate_keys) text.clear();
    body.messages.push_back(Message::of(std::move(*parsed), direction, std::move(text)));
  }
  return body;
}

}  // namespace mcpgate::gateway::mcp
