#include "dlp/decode.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpgate::dlp {
namespace {

std::string sourceOf(const std::string& src, const MappedText& m, std::size_t s, std::size_t e) {
  const auto [a, b] = m.toSource(s, e);
  return src.substr(a, b - a);
}

TEST(Base64, DecodesStandardAndUrlSafeWithOrWithoutPadding) {
  auto m = decodeBase64("aGVsbG8gd29ybGQ=");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "hello world");
  m = decodeBase64("aGVsbG8gd29ybGQ");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "hello world");
  m = decodeBase64("Pz8_Pz8-Pz8_Pz8-");  // url-safe alphabet (_ and -)
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, std::string(5, '?') + ">" + std::string(5, '?') + ">");
}

TEST(Base64, MapsDecodedBytesToTheirQuartets) {
  const std::string enc = "aGVsbG8gd29ybGQ=";
  const auto m = decodeBase64(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(sourceOf(enc, *m, 6, 11), "d29ybGQ=");  // "world" and the padding after it
  EXPECT_EQ(sourceOf(enc, *m, 0, 3), "aGVs");
}

TEST(Base64, RejectsBinaryAndMixedAlphabets) {
  EXPECT_FALSE(decodeBase64("AAECAwQFBgcICQoLDA0ODw=="));  // bytes 0..15
  EXPECT_FALSE(decodeBase64("ab+c-def"));
  EXPECT_FALSE(decodeBase64("not base64!"));
}

TEST(Base64, AcceptsUtf8TextButNotRandomHighBytes) {
  // "grüße aus köln, café" in UTF-8.
  const auto utf8 = decodeBase64("Z3LDvMOfZSBhdXMga8O2bG4sIGNhZsOp");
  ASSERT_TRUE(utf8);
  EXPECT_EQ(utf8->text, "gr\u00fc\u00dfe aus k\u00f6ln, caf\u00e9");
  // 400 'a' decode to bytes 0x69 0xa6 0x9a repeated: high bytes that are not UTF-8.
  EXPECT_FALSE(decodeBase64(std::string(400, 'a')));
}

TEST(Hex, DecodesTextAndRejectsHashes) {
  const std::string enc = "68656c6c6f20776f726c64";
  const auto m = decodeHex(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "hello world");
  EXPECT_EQ(sourceOf(enc, *m, 6, 11), "776f726c64");
  EXPECT_FALSE(decodeHex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

TEST(Percent, DecodesAndMapsEscapes) {
  const std::string enc = "a%2Fb%3Dc+d";
  const auto m = decodePercent(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "a/b=c+d");
  EXPECT_EQ(sourceOf(enc, *m, 1, 2), "%2F");
  EXPECT_FALSE(decodePercent("100% sure"));
}

TEST(Escapes, DecodesJsonAndCStyleEscapesIncludingSurrogatePairs) {
  const std::string enc = R"(\u0041KIA\x42 \ud83d\ude00 \n)";
  const auto m = decodeEscapes(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "AKIAB \U0001F600 \n");
  EXPECT_EQ(sourceOf(enc, *m, 0, 1), R"(\u0041)");
  EXPECT_FALSE(decodeEscapes("no escapes here"));
}

TEST(DecodeAll, FindsEncodedRunsInsideTextAndRespectsBudget) {
  const std::string text = "prefix aGVsbG8gd29ybGQgYWdhaW4= and 68656c6c6f20776f726c64 end";
  std::size_t budget = 1 << 20;
  const auto all = decodeAll(text, budget);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].encoding, Encoding::kBase64);
  EXPECT_EQ(all[0].mapped.text, "hello world again");
  EXPECT_EQ(all[0].mapped.src_begin[0], 7u);  // offsets are relative to `text`
  EXPECT_EQ(all[1].encoding, Encoding::kHex);
  EXPECT_EQ(all[1].mapped.text, "hello world");

  std::size_t small = 12;  // room for one decoded run only
  EXPECT_EQ(decodeAll(text, small).size(), 1u);
}

TEST(DecodeAll, FindsShortestRunsAfterShortWordsAndAtTheEnd) {
  // The run finder skips ahead over short words; the shortest decodable run (14 characters and
  // "==") must still be found right after one and at the very end of the text.
  const std::string run = "c2VjcmV0IHB3IQ==";
  for (const std::string& text : {"ab cd-ef " + run, run, "x/y " + run + " z", "a_b+c " + run}) {
    std::size_t budget = 1 << 20;
    const auto all = decodeAll(text, budget);
    ASSERT_EQ(all.size(), 1u) << text;
    EXPECT_EQ(all[0].mapped.text, "secret pw!") << text;
  }
}

}  // namespace
}  // namespace mcpgate::dlp
