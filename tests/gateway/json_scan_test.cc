#include "gateway/mcp/json_scan.h"

#include <gtest/gtest.h>

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
