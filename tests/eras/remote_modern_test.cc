// A modern (2026-07-28) message posted to a remote server: the request
// metadata headers it carries instead of a session's, and a modern server's
// refusal read as the request's answer (upstream/remote_modern.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gateway/modern/front.h"
#include "gateway/upstream/remote_modern.h"

namespace mcpgate::gateway::remote {
namespace {

using nlohmann::json;

json envelope(std::string version = "2026-07-28") {
  return {{"io.modelcontextprotocol/protocolVersion", version},
          {"io.modelcontextprotocol/clientInfo", {{"name", "c"}, {"version", "1"}}},
          {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

mcp::Message request(std::string method, json params) {
  return mcp::Message::of(
      {{"jsonrpc", "2.0"}, {"id", 7}, {"method", std::move(method)}, {"params", std::move(params)}},
      Direction::kToServer);
}

TEST(RemoteModern, AModernRequestCarriesVersionMethodAndName) {
  auto headers = modernHeadersOf(
      request("tools/call", {{"name", "echo"}, {"arguments", json::object()}, {"_meta", envelope()}}));
  ASSERT_TRUE(headers);
  EXPECT_EQ(headers->protocol_version, "2026-07-28");
  EXPECT_EQ(headers->method, "tools/call");
  EXPECT_EQ(headers->name, "echo");
  auto read = modernHeadersOf(
      request("resources/read", {{"uri", "demo://counter"}, {"_meta", envelope()}}));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->name, "demo://counter");
  auto list = modernHeadersOf(request("tools/list", {{"_meta", envelope()}}));
  ASSERT_TRUE(list);
  EXPECT_FALSE(list->name);  // no Mcp-Name for tools/list
}

TEST(RemoteModern, LegacyMessagesKeepTheirSessionHeaders) {
  EXPECT_FALSE(modernHeadersOf(request("tools/call", {{"name", "echo"}})));
  EXPECT_FALSE(modernHeadersOf(request("initialize", {{"protocolVersion", "2025-11-25"}})));
  // A version the gateway does not speak never becomes a header value.
  EXPECT_FALSE(modernHeadersOf(request("tools/list", {{"_meta", envelope("2026-07-28\r\nX: y")}})));
  EXPECT_FALSE(modernHeadersOf(request("tools/list", {{"_meta", envelope("2099-01-01")}})));
  // A response is never posted with request metadata.
  EXPECT_FALSE(modernHeadersOf(mcp::Message::of(
      {{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}}, Direction::kToServer)));
}

TEST(RemoteModern, ANameThatIsNoPlainHeaderValueIsSentAsTheBase64Sentinel) {
  for (std::string name : {"Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?=",
                           "a\r\nX-Injected: 1"}) {
    auto headers =
        modernHeadersOf(request("tools/call", {{"name", name}, {"_meta", envelope()}}));
    ASSERT_TRUE(headers && headers->name) << name;
    EXPECT_TRUE(headers->name->starts_with("=?base64?")) << *headers->name;
    EXPECT_EQ(headers->name->find_first_of("\r\n"), std::string::npos);
    EXPECT_EQ(modern::decodeHeaderValue(*headers->name), name);
  }
  // The spec's examples, byte for byte.
  EXPECT_EQ(modern::encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
  EXPECT_EQ(modern::encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
  EXPECT_EQ(modern::encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  EXPECT_EQ(modern::encodeHeaderValue("us-west1"), "us-west1");
}

TEST(RemoteModern, AModernServersRefusalIsTheRequestsAnswer) {
  const std::string mismatch =
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch"}})";
  auto answer = modernErrorAnswer(400, mismatch, json(7));
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["id"], 7);
  EXPECT_EQ((*answer)["error"]["code"], -32020);
  const std::string unsupported =
      R"({"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"no","data":{"supported":["2026-07-28"]}}})";
  ASSERT_TRUE(modernErrorAnswer(400, unsupported, json(7)));
  EXPECT_TRUE(modernErrorAnswer(
      404, R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}})",
      json(7)));
  // Not the server's to answer: the gateway reports auth and server failures itself.
  EXPECT_FALSE(modernErrorAnswer(401, mismatch, json(7)));
  EXPECT_FALSE(modernErrorAnswer(403, mismatch, json(7)));
  EXPECT_FALSE(modernErrorAnswer(500, mismatch, json(7)));
  // No JSON-RPC error in the body.
  EXPECT_FALSE(modernErrorAnswer(400, "", json(7)));
  EXPECT_FALSE(modernErrorAnswer(400, "<html>Bad Request</html>", json(7)));
  EXPECT_FALSE(modernErrorAnswer(400, R"({"error":"no"})", json(7)));
}

TEST(RemoteModern, AnnotatedArgumentsOfAListedToolBecomeMcpParamHeaders) {
  ToolParamHeaders tools;
  const json listed = json::parse(R"({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
    {"name": "sql", "inputSchema": {"type": "object", "properties": {
      "region": {"type": "string", "x-mcp-header": "Region"},
      "limit": {"type": "integer", "x-mcp-header": "Limit"},
      "dry": {"type": "boolean", "x-mcp-header": "Dry"},
      "opts": {"type": "object", "properties": {
        "zone": {"type": "string", "x-mcp-header": "Zone"}}}}}},
    {"name": "plain", "inputSchema": {"type": "object"}}]}})");
  learnParamHeaders(mcp::Message::of(listed, Direction::kToClient), tools);
  auto call = [&](std::string tool, json arguments) {  // sorted: the schema's order is not kept
    auto headers = paramHeadersOf(request("tools/call", {{"name", std::move(tool)},
                                                 {"arguments", std::move(arguments)},
                                                 {"_meta", envelope()}}),
                          tools);
    std::ranges::sort(headers);
    return headers;
  };
  using Headers = std::vector<std::pair<std::string, std::string>>;
  const json arguments = {{"region", "us-west1"}, {"limit", 42}, {"dry", false},
                          {"opts", {{"zone", "Hello, 世界"}}}};
  EXPECT_EQ(call("sql", arguments),
            (Headers{{"Dry", "false"},
                     {"Limit", "42"},
                     {"Region", "us-west1"},
                     {"Zone", "=?base64?SGVsbG8sIOS4lueVjA==?="}}));
  // Absent or null: no header. A tool without annotations, or never listed: none.
  EXPECT_TRUE(call("sql", json{{"region", nullptr}}).empty());
  EXPECT_TRUE(call("plain", json{{"region", "x"}}).empty());
  EXPECT_TRUE(call("unlisted", json{{"region", "x"}}).empty());
}

TEST(RemoteModern, AModernCancellationNamesTheRequestWhoseStreamCloses) {
  auto cancel = mcp::Message::of({{"jsonrpc", "2.0"},
                                  {"method", "notifications/cancelled"},
                                  {"params", {{"requestId", "b-3"}, {"_meta", envelope()}}}},
                                 Direction::kToServer);
  EXPECT_EQ(cancelledRequest(cancel), jsonrpc::idKey(json("b-3")));
  EXPECT_EQ(cancelledRequest(request("tools/list", {{"_meta", envelope()}})), "");
}

}  // namespace
}  // namespace mcpgate::gateway::remote
