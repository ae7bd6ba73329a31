#include "gateway/mcp/json_scan.h"
#include "gateway/mcp/json_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace mcpgate::gateway::jsonscan {
namespace {

std::string_view at(std::string_view s, std::size_t from, std::size_t to) {
  return s.substr(from, to - from);
}

TEST(JsonScan, EnvelopeFindsTheIdAndWhereTheResultStarts) {
  const std::string text = R"({"jsonrpc":"2.0","id":"mcpgate-7","result":{"content":[]}})";
  const auto e = envelopeOf(text);
  ASSERT_TRUE(e);
  EXPECT_EQ(at(text, e->id_from, e->id_to), R"("mcpgate-7")");
  ASSERT_NE(e->result, kBad);
  EXPECT_EQ(text.substr(e->result, 12), R"({"content":[)");
  EXPECT_EQ(e->error, kBad);
}

TEST(JsonScan, EnvelopeReadsPastAResultThatComesBeforeTheId) {
  const std::string text =
      R"({ "error" : {"code":-1,"message":"a \"}\" b"}, "id" : 12 , "jsonrpc":"2.0"})";
  const auto e = envelopeOf(text);
  ASSERT_TRUE(e);
  EXPECT_EQ(at(text, e->id_from, e->id_to), "12");
  ASSERT_NE(e->error, kBad);
  EXPECT_EQ(text[e->error], '{');
  EXPECT_EQ(e->result, kBad);
}

TEST(JsonScan, EnvelopeOfANotificationHasNoIdAndBrokenTextIsRefused) {
  const auto note =
      envelopeOf(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->id_from, kBad);
  EXPECT_EQ(note->result, kBad);
  EXPECT_FALSE(envelopeOf(R"({"jsonrpc":"2.0","id":"x)"));
  EXPECT_FALSE(envelopeOf(R"({"jsonrpc":"2.0" "id":1})"));
  EXPECT_FALSE(envelopeOf("[1]"));
}

TEST(JsonScan, SplicedReplacesTheIdAndInsertsOnEitherSideOfIt) {
  const std::string text = R"({"id":"mcpgate-1","result":{"a":1}})";
  const auto e = envelopeOf(text);
  ASSERT_TRUE(e);
  EXPECT_EQ(spliced(text, e->id_from, e->id_to, "42", e->result + 1, R"("t":"c",)"),
            R"({"id":42,"result":{"t":"c","a":1}})");
  EXPECT_EQ(spliced(text, e->id_from, e->id_to, "null"), R"({"id":null,"result":{"a":1}})");
  const std::string after = R"({"result":{"a":1},"id":"mcpgate-1"})";
  const auto f = envelopeOf(after);
  ASSERT_TRUE(f);
  EXPECT_EQ(spliced(after, f->id_from, f->id_to, R"("c")", f->result + 1, R"("t":"c",)"),
            R"({"result":{"t":"c","a":1},"id":"c"})");
}

}  // namespace
}  // namespace mcpgate::gateway::jsonscan

namespace mcpgate::gateway::jsonrpc::detail {
namespace {

// The byte-at-a-time definition plainRunEnd's wide loops must agree with.
const char* slowRunEnd(const char* p, const char* end) {
  while (p < end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++p;
  }
  return p;
}

TEST(JsonText, PlainRunEndStopsAtTheFirstSpecialByteWhereverItIs) {
  const std::string stops = std::string("\"\\\x01\x1f\x80\xff\xc3", 7) + std::string(1, '\0');
  for (std::size_t length : {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100}) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (char stop : stops) {
        std::string text(length, 'a');
        for (std::size_t i = 0; i < length; ++i) text[i] = static_cast<char>(' ' + (i * 7) % 60);
        std::replace(text.begin(), text.end(), '"', '#');
        std::replace(text.begin(), text.end(), '\\', '#');
        if (at < length) text[at] = stop;
        const char* begin = text.data();
        const char* end = text.data() + text.size();
        ASSERT_EQ(plainRunEnd(begin, end) - begin, slowRunEnd(begin, end) - begin)
            << "length " << length << ", stop " << static_cast<int>(stop) << " at " << at;
        // From every offset too: the wide loops start unaligned.
        if (at > 0) {
          ASSERT_EQ(plainRunEnd(begin + 1, end) - begin, slowRunEnd(begin + 1, end) - begin);
        }
      }
    }
  }
}

}  // namespace
}  // namespace mcpgate::gateway::jsonrpc::detail
