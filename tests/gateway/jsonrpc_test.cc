#include "gateway/mcp/jsonrpc.h"

#include <gtest/gtest.h>

namespace mcpgate::gateway::jsonrpc {
namespace {

TEST(JsonRpc, ClassifiesMessages) {
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"ping"})")), Kind::kRequest);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":"a","method":"ping"})")), Kind::kRequest);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")),
            Kind::kNotification);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})")), Kind::kResponse);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}})")),
            Kind::kResponse);
  EXPECT_EQ(
      classify(json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}})")),
      Kind::kResponse);
}

TEST(JsonRpc, RejectsWhatIsNotJsonRpc) {
  EXPECT_EQ(classify(json::parse(R"({"id":1,"method":"ping"})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"method":5})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":{},"method":"x"})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":null,"method":"x"})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})")),
            Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"({"jsonrpc":"2.0","id":1})")), Kind::kInvalid);
  EXPECT_EQ(classify(json::parse(R"([1])")), Kind::kInvalid);
}

TEST(JsonRpc, DepthIsLimited) {
  EXPECT_TRUE(parse(R"({"a":[{"b":1}]})", 3).has_value());
  auto three = parse(R"({"a":[{"b":1}]})", 2);
  ASSERT_FALSE(three.has_value());
  EXPECT_EQ(three.error().code, kInvalidRequest);
  // Brackets inside strings, and escaped quotes, do not count.
  EXPECT_TRUE(parse(R"({"a":"[[[[[\"[[[["})", 1).has_value());
  auto deep = parse(std::string(5000, '[') + std::string(5000, ']'), 64);
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().code, kInvalidRequest);
  EXPECT_EQ(deep.error().message, "message nests deeper than the limit of 64");
}

TEST(JsonRpc, ParseErrorsSayWhere) {
  auto bad = parse(R"({"jsonrpc":"2.0",)", 64);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, kParseError);
  EXPECT_EQ(bad.error().message.find("Parse error at line 1, column 18: "), 0u)
      << bad.error().message;
  auto scalar = parse("42", 64);
  ASSERT_FALSE(scalar.has_value());
  EXPECT_EQ(scalar.error().code, kInvalidRequest);
}

TEST(JsonRpc, IdKeysKeepTypes) {
  EXPECT_NE(idKey(json(1)), idKey(json("1")));
  EXPECT_EQ(idKey(json(1)), idKey(json::parse("1")));
}

TEST(JsonRpc, ErrorResponses) {
  json e = json::parse(errorResponse(7, kUpstreamError, "gone", {{"reason", "x"}}));
  EXPECT_EQ(e["jsonrpc"], "2.0");
  EXPECT_EQ(e["id"], 7);
  EXPECT_EQ(e["error"]["code"], -32000);
  EXPECT_EQ(e["error"]["message"], "gone");
  EXPECT_EQ(e["error"]["data"]["reason"], "x");
  EXPECT_FALSE(json::parse(errorResponse(nullptr, kParseError, "p"))["error"].contains("data"));
}

TEST(JsonRpc, FlattenKeepsTheMessage) {
  std::string pretty = "{\n  \"jsonrpc\": \"2.0\",\r\n  \"method\": \"a\\nb\"\n}";
  std::string line = pretty;
  flattenToLine(line);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(line), json::parse(pretty));
}

TEST(JsonRpc, ProtocolVersions) {
  EXPECT_TRUE(isSupportedProtocolVersion("2025-03-26"));
  EXPECT_TRUE(isSupportedProtocolVersion("2025-06-18"));
  EXPECT_TRUE(isSupportedProtocolVersion("2025-11-25"));
  EXPECT_FALSE(isSupportedProtocolVersion("2024-11-05"));
  EXPECT_FALSE(isSupportedProtocolVersion(""));
}

TEST(JsonRpc, ToolOfNamesTheToolOfACallOnly) {
  EXPECT_EQ(toolOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
                                   "params":{"name":"echo","arguments":{}}})")),
            "echo");
  // A notification with that method, another method, or no string name: none.
  EXPECT_EQ(toolOf(json::parse(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}})")),
            "");
  EXPECT_EQ(toolOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"prompts/get",
                                   "params":{"name":"x"}})")),
            "");
  EXPECT_EQ(toolOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
                                   "params":{"name":7}})")),
            "");
  EXPECT_EQ(toolOf(json::parse(R"([1])")), "");
}

}  // namespace
}  // namespace mcpgate::gateway::jsonrpc

namespace mcpgate::gateway::jsonrpc {
namespace {

TEST(JsonRpc, ReleaseEmptiesAValueAndLeavesDeepNestingToNlohmann) {
  json value = json::parse(R"({"a":[1,{"b":"x","c":[[],{}]}],"d":{"e":null}})");
  release(value);
  EXPECT_TRUE(value.is_object());
  EXPECT_TRUE(value.empty());
  // Nested far deeper than release recurses: no stack exhaustion, and the rest is freed.
  std::string deep(100000, '[');
  deep.append(100000, ']');
  json nested = json::parse(deep);
  release(nested);
  EXPECT_TRUE(nested.is_array());
  EXPECT_TRUE(nested.empty());
}

}  // namespace
}  // namespace mcpgate::gateway::jsonrpc
