#include "bench/echo_logic.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpgate::bench {
namespace {

TEST(EchoLogic, EchoesTheTextRawWhateverTheKeyOrder) {
  const std::string expected =
      R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a \"b\" \\ c\n"}]}})";
  // The SDK's order, with spaces.
  EXPECT_EQ(answer(R"({"method": "tools/call", "params": {"name": "echo", "arguments": )"
                   R"({"text": "a \"b\" \\ c\n"}}, "jsonrpc": "2.0", "id": 7})"),
            expected);
  // nlohmann's order (keys sorted, no spaces), as mcpgate forwards it.
  EXPECT_EQ(answer(R"({"id":7,"jsonrpc":"2.0","method":"tools/call",)"
                   R"("params":{"arguments":{"text":"a \"b\" \\ c\n"},"name":"echo"}})"),
            expected);
}

TEST(EchoLogic, SkipsOtherValuesWithNestingAndEscapes) {
  EXPECT_EQ(
      answer(R"({"x":{"y":[1,{"z":"}]\""}],"w":null},"id":"s\"1","method":"tools/call",)"
             R"("params":{"_meta":{"progressToken":[[]]},"arguments":{"other":"\\","text":"t"},)"
             R"("name":"echo"},"jsonrpc":"2.0"})"),
      R"({"jsonrpc":"2.0","id":"s\"1","result":{"content":[{"type":"text","text":"t"}]}})");
}

TEST(EchoLogic, InitializeEchoesTheRequestedProtocolVersion) {
  const std::string tail =
      R"(,"capabilities":{"tools":{}},"serverInfo":{"name":"mcpgate-bench-echo","version":"1.0.0"}}})";
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":)"
                   R"({"protocolVersion":"2025-03-26","capabilities":{}}})"),
            R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26")" + tail);
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":0,"method":"initialize"})"),
            R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18")" + tail);
}

TEST(EchoLogic, NotificationsAndResponsesGetNoAnswer) {
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"), std::nullopt);
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":3,"result":{}})"), std::nullopt);
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}})"), std::nullopt);
}

TEST(EchoLogic, PingListAndUnknownMethods) {
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"),
            R"({"jsonrpc":"2.0","id":1,"result":{}})");
  EXPECT_NE(answer(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")->find(R"("name":"echo")"),
            std::string::npos);
  EXPECT_EQ(answer(R"({"jsonrpc":"2.0","id":1,"method":"resources/list"})"),
            R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}})");
  EXPECT_NE(answer(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}})")
                ->find("-32602"),
            std::string::npos);
}

TEST(EchoLogic, BadInputIsAParseErrorWithNullId) {
  const std::string parse_error =
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})";
  for (const char* bad :
       {"", "{", "[1]", R"({"id":1,"method":"ping")", R"({"id":1,"method":"ping"}x)",
        R"({"id":1,"method":"ping","p":{]})", R"({"id":1,"method":"pi)",
        R"({"id":1 "method":"ping"})", R"({"a":"\"})"}) {
    EXPECT_EQ(answer(bad), parse_error) << bad;
  }
  // Deep nesting is refused, not recursed into.
  EXPECT_EQ(answer(R"({"id":1,"p":)" + std::string(100000, '[')), parse_error);
}

}  // namespace
}  // namespace mcpgate::bench
