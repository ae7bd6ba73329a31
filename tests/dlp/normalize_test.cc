#include "dlp/normalize.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpgate::dlp {
namespace {

// Every derived byte maps to source bytes that normalize to a text containing it, and spans
// map back monotonically: the property redaction relies on.
void expectRoundTrip(const std::string& src, const MappedText& m) {
  ASSERT_EQ(m.text.size(), m.src_begin.size());
  ASSERT_EQ(m.text.size(), m.src_end.size());
  for (std::size_t i = 0; i < m.text.size(); ++i) {
    ASSERT_LT(m.src_begin[i], m.src_end[i]);
    ASSERT_LE(m.src_end[i], src.size());
    if (i > 0) {
      EXPECT_LE(m.src_begin[i - 1], m.src_begin[i]);
    }
    const auto again = normalize(src.substr(m.src_begin[i], m.src_end[i] - m.src_begin[i]));
    EXPECT_NE(again.text.find(m.text[i]), std::string::npos) << "byte " << i;
  }
}

TEST(Normalize, AsciiIsUnchangedAndMapsOneToOne) {
  const std::string s = "plain ASCII text 123";
  EXPECT_FALSE(hasNonAscii(s));
  const auto m = normalize(s);
  EXPECT_EQ(m.text, s);
  expectRoundTrip(s, m);
  EXPECT_EQ(m.toSource(6, 11), (std::pair<std::size_t, std::size_t>{6, 11}));
}

TEST(Normalize, RemovesZeroWidthAndFormatCharacters) {
  const std::string s = "AK\u200BIA\u200D\u2060X\uFEFFY\u00ADZ";
  EXPECT_TRUE(hasNonAscii(s));
  const auto m = normalize(s);
  EXPECT_EQ(m.text, "AKIAXYZ");
  expectRoundTrip(s, m);
  // The span of "AKIAXYZ" maps to the whole original, invisible characters included.
  EXPECT_EQ(m.toSource(0, 7), (std::pair<std::size_t, std::size_t>{0, s.size()}));
}

TEST(Normalize, FoldsFullWidthFormsAndSpaces) {
  const std::string s = "\uFF53\uFF4B\uFF3F\uFF4C\uFF49\uFF56\uFF45\u3000x";  // ｓｋ＿ｌｉｖｅ　x
  const auto m = normalize(s);
  EXPECT_EQ(m.text, "sk_live x");
  expectRoundTrip(s, m);
  EXPECT_EQ(m.toSource(3, 4), (std::pair<std::size_t, std::size_t>{9, 12}));
}

TEST(Normalize, FoldsCyrillicAndGreekHomoglyphsAndMathLetters) {
  EXPECT_EQ(normalize("\u0456gn\u043Er\u0435 \u0440r\u0435v\u0456\u043Eus").text,
            "ignore previous");
  EXPECT_EQ(normalize("\u0391\u039A\u0399\u0391").text, "AKIA");
  EXPECT_EQ(normalize("\U0001D400\U0001D41A\U0001D7CF").text, "Aa1");
}

TEST(Normalize, DecodesTagCharactersAndKeepsOtherText) {
  const std::string s = "caf\u00E9 \U000E0068\U000E0069 \u4E2D";
  const auto m = normalize(s);
  EXPECT_EQ(m.text, "caf\u00E9 hi \u4E2D");
  expectRoundTrip(s, m);
}

TEST(Normalize, PassesInvalidUtf8Through) {
  const std::string s = "a\xFF\xC3(b\xE2\x82";
  const auto m = normalize(s);
  EXPECT_EQ(m.text, s);
  expectRoundTrip(s, m);
}

}  // namespace
}  // namespace mcpgate::dlp
