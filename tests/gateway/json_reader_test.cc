// jsonrpc::parse against nlohmann's own parser: the same texts accepted, the
// same values built (types included), on hand-picked cases and on a few
// thousand deterministic mutations of real MCP messages.

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway::jsonrpc {
namespace {

// nlohmann's verdict on a whole message: the value, or discarded.
json reference(const std::string& text) { return json::parse(text, nullptr, false); }

// Fails the test when the reader and nlohmann disagree on `text`.
void agree(const std::string& text) {
  const json expected = reference(text);
  auto got = parse(text, 10000);
  const bool expected_ok =
      !expected.is_discarded() && (expected.is_object() || expected.is_array());
  ASSERT_EQ(got.has_value(), expected_ok)
      << "text: " << text << "\nreader: " << (got ? "accepted" : got.error().message);
  if (!expected_ok) return;
  EXPECT_EQ(*got, expected) << text;
  EXPECT_EQ(got->dump(), expected.dump()) << text;  // same types: 1 vs 1.0, -0 vs 0
  EXPECT_EQ(serialize(*got), expected.dump(-1, ' ', false, json::error_handler_t::replace));
}

TEST(JsonReader, AgreesWithNlohmannOnEdgeCases) {
  const std::vector<std::string> cases = {
      R"({})", R"([])", R"( { } )", "\t\r\n[1]\n", R"({"a":1,})", R"([1,])", R"([1 2])",
      R"({"a" 1})", R"({a:1})", R"({"a":1}})", R"([1]x)", R"({"a":tru})", R"([true,false,null])",
      R"([nul])", R"([01])", R"([-0])", R"([-])", R"([1.])", R"([.5])", R"([1e5,1E+5,1e-5])",
      R"([1e])", R"([18446744073709551615])", R"([18446744073709551616])",
      R"([-9223372036854775808])", R"([-9223372036854775809])", R"([1.5e999])", R"([-1e-999])",
      R"([0.1,2.5,-3.25e10])", R"(["\"\\\/\b\f\n\r\t"])", R"(["\u0041\u00e9\u20ac"])",
      R"(["\ud83d\ude00"])", R"(["\ud83d"])", R"(["\ude00"])", R"(["\ud83dx"])",
      R"(["\ud83d\u0041"])", R"(["\u00"])", R"(["\uZZZZ"])", R"(["\x"])", R"(["\u0000"])",
      "[\"a\x01\"]", "[\"a\x7f\"]", "[\"caf\xc3\xa9\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]",
      "[\"\xe0\x80\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]",
      "[\"\xf0\x9f\x98\x80\"]", "[\"\xff\"]", "[\"\x80\"]", R"({"a":1,"a":2})",
      R"({"a":{"b":[1,{"c":"d"}]}})", R"(["unterminated)", R"({"k":"v")", "", " ", "[",
      std::string("[\"a\0b\"]", 7), "[1]\0", R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
      "[\"" + std::string(100, 'x') + "\\n" + std::string(37, 'y') + "\"]",
  };
  for (const auto& text : cases) agree(text);
}

TEST(JsonReader, ReportsDuplicateKeysAndKeepsTheLast) {
  bool duplicates = false;
  auto value = parse(R"({"a":{"x":1,"x":2},"b":3})", 64, &duplicates);
  ASSERT_TRUE(value.has_value());
  EXPECT_TRUE(duplicates);
  EXPECT_EQ((*value)["a"]["x"], 2);
  value = parse(R"({"a":{"x":1},"b":{"x":2}})", 64, &duplicates);
  ASSERT_TRUE(value.has_value());
  EXPECT_FALSE(duplicates);  // the same key in two objects is no duplicate
}

TEST(JsonReader, ParseErrorsSayWhere) {
  auto bad = parse("{\"a\":1,\n \"b\":}", 64);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, kParseError);
  EXPECT_EQ(bad.error().message.find("Parse error at line 2, column 6: "), 0u)
      << bad.error().message;
}

// Strings the gateway builds itself may hold bytes that are not UTF-8: the
// writer replaces them as nlohmann's dump does.
TEST(JsonWriter, WritesWhatNlohmannWrites) {
  std::vector<std::string> texts = {
      "plain", "caf\xc3\xa9", "\xe2\x82\x41", "\xe2\x82", "\xe0\x80\x80", "\x80\x80x",
      "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98\x80!", "\xff\xfe",
      std::string("nul\0in", 6), "\x01\x1f\x7f\"\\/\b\f\n\r\t", "end\xc3"};
  std::mt19937 random(7);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(1 + random() % 24, ' ');
    for (char& c : bytes) c = static_cast<char>(random() % 4 == 0 ? random() % 256 : 'a');
    texts.push_back(bytes);
  }
  for (const std::string& text : texts) {
    const json value = {{"k" + text, text}, {"n", {1, -2, 2.5, true, nullptr}}};
    ASSERT_EQ(serialize(value), value.dump(-1, ' ', false, json::error_handler_t::replace))
        << ::testing::PrintToString(text);
  }
  // Integers are written without nlohmann (request ids): the extremes too.
  const json numbers = {std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max(),
                        std::numeric_limits<std::uint64_t>::max(),
                        0,
                        -1,
                        std::uint64_t{10},
                        -0.0,
                        1e300,
                        false};
  EXPECT_EQ(serialize(numbers), numbers.dump());
  for (const json& id : numbers) EXPECT_EQ(idKey(id), id.dump());
  EXPECT_EQ(idKey(json("7")), "\"7\"");
}

// Mutations of real messages: bytes replaced, inserted and removed, drawn
// from the characters that matter to a JSON reader.
TEST(JsonReader, AgreesWithNlohmannOnMutatedMessages) {
  const std::vector<std::string> seeds = {
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"caf\u00e9 \"quoted\" \\ done","n":[1,-2,3.5e2,true,false,null]}}})",
      R"({"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"line\nnext \ud83d\ude00"}],"isError":false}})",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"
      "18446744073709551615,\"progress\":0.25,\"message\":\"\xc3\xa9t\xc3\xa9\"}}",
  };
  const std::string alphabet = "{}[]:,\"\\/ubfnrt0123456789-+.eE aZ\x01\x7f\xc3\xa9\xed\xf0\xff";
  std::mt19937 random(20261121);
  for (const auto& seed : seeds) {
    agree(seed);
    for (int round = 0; round < 1500; ++round) {
      std::string text = seed;
      const int edits = 1 + static_cast<int>(random() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = random() % text.size();
        const char c = alphabet[random() % alphabet.size()];
        switch (random() % 3) {
          case 0: text[at] = c; break;
          case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
          default: text.erase(at, 1); break;
        }
      }
      agree(text);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace mcpgate::gateway::jsonrpc
