#include "bench/echo_logic.h"

#include "bench/json_scan.h"

namespace mcpgate::bench {

namespace {

constexpr std::string_view kDefaultProtocolVersion = "\"2025-06-18\"";
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

void appendHead(std::string& out, std::string_view id) {
  out += R"({"jsonrpc":"2.0","id":)";
  out += id;
}

void appendError(std::string& out, std::string_view id, int code, std::string_view message) {
  appendHead(out, id);
  out += R"(,"error":{"code":)";
  out += std::to_string(code);
  out += R"(,"message":")";
  out += message;  // our own constant text: nothing to escape
  out += "\"}}";
}

struct Message {
  std::optional<std::string_view> id;
  std::optional<std::string_view> method;  // raw value
  std::optional<std::string_view> params;  // raw value
  bool is_response = false;                // has result or error
};

void answerInitialize(std::string& out, std::string_view id,
                      std::optional<std::string_view> params) {
  std::string_view version = kDefaultProtocolVersion;
  if (params) {
    if (auto v = member(*params, "protocolVersion"); v && stringContent(*v)) version = *v;
  }
  appendHead(out, id);
  out += R"(,"result":{"protocolVersion":)";
  out += version;
  out +=
      R"(,"capabilities":{"tools":{}},"serverInfo":{"name":"mcpgate-bench-echo","version":"1.0.0"}}})";
}

void answerToolsList(std::string& out, std::string_view id) {
  appendHead(out, id);
  out += R"(,"result":{"tools":[{"name":"echo","description":"Returns its text argument",)"
         R"("inputSchema":{"type":"object","properties":{"text":{"type":"string"}},)"
         R"("required":["text"]}}]}})";
}

void answerToolsCall(std::string& out, std::string_view id,
                     std::optional<std::string_view> params) {
  std::optional<std::string_view> name;
  std::optional<std::string_view> arguments;
  if (params) {
    const std::size_t end = forEachMember(*params, 0, [&](std::string_view k, std::string_view v) {
      if (k == "name") name = stringContent(v);
      if (k == "arguments") arguments = v;
      return true;
    });
    if (end == kBad) name.reset();
  }
  if (!name || *name != "echo") {
    appendError(out, id, kInvalidParams, "Unknown tool");
    return;
  }
  std::optional<std::string_view> text;
  if (arguments) {
    if (auto v = member(*arguments, "text")) text = stringContent(*v);
  }
  if (!text) {
    appendError(out, id, kInvalidParams, "Missing string argument text");
    return;
  }
  out.reserve(out.size() + text->size() + 96);
  appendHead(out, id);
  out += R"(,"result":{"content":[{"type":"text","text":")";
  out += *text;
  out += "\"}]}}";
}

}  // namespace

Handled appendAnswer(std::string_view line, std::string& out) {
  Message m;
  const std::size_t end = forEachMember(line, 0, [&](std::string_view k, std::string_view v) {
    if (k == "id") {
      m.id = v;
    } else if (k == "method") {
      m.method = v;
    } else if (k == "params") {
      m.params = v;
    } else if (k == "result" || k == "error") {
      m.is_response = true;
    }
    return true;
  });
  if (end == kBad || skipWs(line, end) != line.size()) {
    appendError(out, "null", kParseError, "Parse error");
    return {.answered = true};
  }
  if (!m.id) return {};  // a notification, or a response without id
  if (!m.method) {
    if (m.is_response) return {};
    appendError(out, *m.id, kInvalidRequest, "Invalid Request");
    return {.answered = true};
  }
  const std::optional<std::string_view> method = stringContent(*m.method);
  if (!method) {
    appendError(out, *m.id, kInvalidRequest, "Invalid Request");
    return {.answered = true};
  }
  if (*method == "tools/call") {
    answerToolsCall(out, *m.id, m.params);
  } else if (*method == "initialize") {
    answerInitialize(out, *m.id, m.params);
    return {.answered = true, .initialize = true};
  } else if (*method == "tools/list") {
    answerToolsList(out, *m.id);
  } else if (*method == "ping") {
    appendHead(out, *m.id);
    out += R"(,"result":{}})";
  } else {
    appendError(out, *m.id, kMethodNotFound, "Method not found");
  }
  return {.answered = true};
}

std::optional<std::string> answer(std::string_view line) {
  std::string out;
  if (!appendAnswer(line, out).answered) return std::nullopt;
  return out;
}

}  // namespace mcpgate::bench
