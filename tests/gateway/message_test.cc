#include "gateway/mcp/message.h"

#include <gtest/gtest.h>

namespace mcpgate::gateway::mcp {
namespace {

using jsonrpc::Kind;
using nlohmann::json;

Message one(const std::string& text) {
  auto body = parseBody(text, 64, Direction::kToServer);
  EXPECT_TRUE(body.has_value());
  EXPECT_EQ(body->messages.size(), 1u);
  return std::move(body->messages.front());
}

TEST(Message, ToolsCallCarriesItsFacts) {
  const std::string text =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":{}}})";
  Message m = one(text);
  EXPECT_EQ(m.kind, Kind::kRequest);
  EXPECT_EQ(m.id, json(7));
  EXPECT_EQ(m.id_key, "7");
  EXPECT_EQ(m.method, "tools/call");
  EXPECT_EQ(m.tool, "read");
  EXPECT_EQ(m.era, Era::kUnknown);
  EXPECT_EQ(m.policy, nullptr);
  EXPECT_EQ(m.text, text);  // forwarded as the client wrote it
  EXPECT_EQ(m.value["params"]["name"], "read");
}

TEST(Message, IdKeysTellNumbersFromStrings) {
  EXPECT_EQ(one(R"({"jsonrpc":"2.0","id":"1","result":{}})").id_key, R"("1")");
  EXPECT_EQ(one(R"({"jsonrpc":"2.0","id":1,"result":{}})").id_key, "1");
}

TEST(Message, KindsAndMethods) {
  Message n = one(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})");
  EXPECT_EQ(n.kind, Kind::kNotification);
  EXPECT_EQ(n.method, "notifications/progress");
  EXPECT_TRUE(n.id_key.empty());
  // A tools/call without an id names no tool: only requests do.
  EXPECT_TRUE(one(R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}})").tool.empty());
  Message bad = one(R"({"jsonrpc":"2.0","id":{"a":1},"method":"x"})");
  EXPECT_EQ(bad.kind, Kind::kInvalid);
  EXPECT_EQ(bad.id, json({{"a", 1}}));  // kept for the error that answers it
}

TEST(Message, DuplicateKeysAndBatchesAreNotForwardedAsWritten) {
  auto dup = parseBody(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"ping"})", 64,
                       Direction::kToServer);
  ASSERT_TRUE(dup.has_value());
  EXPECT_TRUE(dup->duplicate_keys);
  EXPECT_TRUE(dup->messages[0].text.empty());
  EXPECT_EQ(dup->messages[0].id_key, "2");  // the last, as the value holds it
  EXPECT_EQ(dup->messages[0].wire(), R"({"id":2,"jsonrpc":"2.0","method":"ping"})");

  auto batch = parseBody(R"([{"jsonrpc":"2.0","id":1,"method":"a"},
                             {"jsonrpc":"2.0","method":"b"}])",
                         64, Direction::kToServer);
  ASSERT_TRUE(batch.has_value());
  EXPECT_TRUE(batch->batch);
  ASSERT_EQ(batch->messages.size(), 2u);
  EXPECT_EQ(batch->messages[0].kind, Kind::kRequest);
  EXPECT_EQ(batch->messages[1].kind, Kind::kNotification);
  EXPECT_TRUE(batch->messages[0].text.empty());
}

TEST(Message, LineHasNoRawBreaks) {
  Message m = one("{\"jsonrpc\":\"2.0\",\r\n\"id\":1,\n\"method\":\"ping\"}");
  EXPECT_EQ(m.line(), "{\"jsonrpc\":\"2.0\",  \"id\":1, \"method\":\"ping\"}");
}

TEST(Message, ParseErrorsAreReported) {
  auto body = parseBody("{\"jsonrpc\":", 64, Direction::kToClient);
  ASSERT_FALSE(body.has_value());
  EXPECT_EQ(body.error().code, jsonrpc::kParseError);
}

TEST(Message, MadeMessagesCarryTheirFacts) {
  Message m = Message::made(R"({"jsonrpc":"2.0","id":"x","error":{}})", Kind::kResponse,
                            Direction::kToServer, "x");
  EXPECT_EQ(m.id_key, R"("x")");
  EXPECT_EQ(m.wire(), R"({"jsonrpc":"2.0","id":"x","error":{}})");
}

}  // namespace
}  // namespace mcpgate::gateway::mcp
