#include "dlp/decode.h"

#include <gtest/gtest.h>

#include <zlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "dlp/hs_util.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

// A GitHub classic token in the published format; random characters, not a real token.
const std::string kTok = "ghp_R8aZk3Lq0WvT5xYb7NcD2mEf9HgJ4sPu6QiX";

std::string base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                       static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v =
        static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

// `text` wrapped every `width` characters with `brk`, as MIME (76, CRLF) and PEM (64, LF) do.
std::string wrap(const std::string& text, std::size_t width, std::string_view brk) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += width) {
    if (i != 0) out += brk;
    out += text.substr(i, width);
  }
  return out;
}

std::string utf16le(std::string_view ascii) {
  std::string out;
  for (const char c : ascii) out += {c, '\0'};
  return out;
}

DecodeBudget budgetOf(std::size_t bytes) { return DecodeBudget{bytes, false}; }

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
  auto budget = budgetOf(1 << 20);
  const auto all = decodeAll(text, budget);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].encoding, Encoding::kBase64);
  EXPECT_EQ(all[0].mapped.text, "hello world again");
  EXPECT_EQ(all[0].mapped.src_begin[0], 7u);  // offsets are relative to `text`
  EXPECT_EQ(all[1].encoding, Encoding::kHex);
  EXPECT_EQ(all[1].mapped.text, "hello world");

  auto small = budgetOf(20);  // room for one decoded run only
  EXPECT_EQ(decodeAll(text, small).size(), 1u);
  EXPECT_TRUE(small.exhausted);  // the second run was not decoded: the caller must know
}

TEST(DecodeAll, FindsShortestRunsAfterShortWordsAndAtTheEnd) {
  // The run finder skips ahead over short words; the shortest decodable run (14 characters and
  // "==") must still be found right after one and at the very end of the text.
  const std::string run = "c2VjcmV0IHB3IQ==";
  for (const std::string& text : {"ab cd-ef " + run, run, "x/y " + run + " z", "a_b+c " + run}) {
    auto budget = budgetOf(1 << 20);
    const auto all = decodeAll(text, budget);
    ASSERT_EQ(all.size(), 1u) << text;
    EXPECT_EQ(all[0].mapped.text, "secret pw!") << text;
  }
}

// Fail closed: decoded bytes that are not clean text are still scanned.

TEST(FailClosed, TextWithANulIsDecoded) {
  const auto m = decodeBase64(base64(std::string("\0token=", 7) + kTok));
  ASSERT_TRUE(m);
  EXPECT_NE(m->text.find(kTok), std::string::npos);
}

TEST(FailClosed, Utf16IsTranscodedAndMapped) {
  const std::string enc = base64(utf16le("token=" + kTok));
  const auto m = decodeBase64(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "token=" + kTok);
  // The token's bytes map onto the encoded characters that carry them, to the end of the run.
  const auto [b, e] = m->toSource(6, m->text.size());
  EXPECT_EQ(e, enc.size());
  EXPECT_LE(b, 6u * 2 * 4 / 3);
}

TEST(FailClosed, BinaryKeepsItsPrintableRuns) {
  std::string blob;
  for (int i = 0; i < 64; ++i) blob.push_back(static_cast<char>(0x80 + i * 7 % 120));
  blob += kTok;
  for (int i = 0; i < 64; ++i) blob.push_back(static_cast<char>(i % 9 == 0 ? 0 : 0xF0 + i % 15));
  const auto m = decodeBase64(base64(blob));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, kTok);
}

TEST(FailClosed, WrappedBase64IsJoinedAcrossEveryKindOfBreak) {
  const std::string payload = "config dump follows, token=" + kTok + " and the rest of the file";
  const std::string enc = base64(payload);
  for (const auto& [width, brk] : std::vector<std::pair<std::size_t, std::string>>{
           {76, "\r\n"}, {64, "\n"}, {16, "\n"}, {20, "\\n"}, {16, "\\r\\n"}}) {
    const std::string text = "attachment:\n" + wrap(enc, width, brk) + "\nend";
    auto budget = budgetOf(1 << 20);
    const auto all = decodeAll(text, budget);
    // One base64 run (literal "\\n" breaks also give the escape decoding of the whole text).
    ASSERT_GE(all.size(), 1u) << width;
    ASSERT_EQ(all[0].encoding, Encoding::kBase64) << width;
    EXPECT_EQ(all[0].mapped.text, payload) << width;
    // The finding maps back onto the wrapped characters, line breaks included.
    const auto at = payload.find(kTok);
    const auto [b, e] = all[0].mapped.toSource(at, at + kTok.size());
    EXPECT_LT(b, e);
    EXPECT_GT(e - b, kTok.size() * 4 / 3) << width;
  }
}

TEST(FailClosed, LinesOfOtherLengthsAreNotJoined) {
  // Two independent runs, the first not a multiple of 4 long: joining them would misalign the
  // second one's decoding.
  const std::string a = base64("first value, ab"), b = base64("token=" + kTok);
  auto budget = budgetOf(1 << 20);
  const auto all = decodeAll(a.substr(0, 18) + "\n" + b, budget);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].mapped.text, "token=" + kTok);
}

TEST(FailClosed, ARunPastTheBudgetIsReportedNotSkipped) {
  const std::string big = base64(std::string(3000, 'x') + "token=" + kTok);
  auto budget = budgetOf(1000);
  EXPECT_TRUE(decodeAll("a " + big, budget).empty());
  EXPECT_TRUE(budget.exhausted);
  // A run that fits leaves the budget reduced and not exhausted.
  auto enough = budgetOf(4000);
  EXPECT_EQ(decodeAll("a " + big, enough).size(), 1u);
  EXPECT_FALSE(enough.exhausted);
}

// Through the scanner: what could not be decoded makes the message unscanned, and by default
// that blocks it.

TEST(FailClosedScan, SecretPastTheDecodeBudgetBlocksTheRequest) {
  const Scanner s(testing::shippedRules());
  // A large attachment with the secret at its end, as in the report (1.6 MB of base64).
  const std::string attachment = base64(std::string(1'200'000, 'x') + " token=" + kTok);
  const nlohmann::json msg = {
      {"jsonrpc", "2.0"},
      {"id", 1},
      {"method", "tools/call"},
      {"params", {{"name", "upload"}, {"arguments", {{"file", attachment}}}}}};
  Policy small;
  small.max_decoded_bytes = 1 << 20;
  const auto f = s.scan(msg, Direction::kRequest, small);
  EXPECT_EQ(f.strongest(), Action::kBlock);
  EXPECT_NE(f.unscanned.find("/params/arguments/file"), std::string::npos) << f.unscanned;
  EXPECT_NE(f.unscanned.find("1048576"), std::string::npos) << f.unscanned;
  // The operator may let it through instead (warn and audit).
  small.unscanned = Action::kWarn;
  EXPECT_EQ(s.scan(msg, Direction::kRequest, small).strongest(), Action::kWarn);
  // Within the default budget the secret itself is found.
  const auto full = s.scan(msg, Direction::kRequest);
  EXPECT_TRUE(full.unscanned.empty()) << full.unscanned;
  bool found = false;
  for (const auto& x : full.items) found |= x.decoded_by == "base64";
  EXPECT_TRUE(found);
}

TEST(FailClosedScan, PerMessageCapCountsEveryString) {
  const Scanner s(testing::shippedRules());
  // Spaces: the decoded text holds nothing that decodes again.
  const std::string part = base64(std::string(3000, ' '));
  nlohmann::json msg = {
      {"jsonrpc", "2.0"}, {"id", 1}, {"result", {{"parts", nlohmann::json::array()}}}};
  for (int i = 0; i < 10; ++i) msg["result"]["parts"].push_back(part);
  Policy p;
  p.max_decoded_bytes = 4000;               // each string fits
  p.max_decoded_bytes_per_message = 20000;  // ten of them do not
  const auto f = s.scan(msg, Direction::kResponse, p);
  EXPECT_EQ(f.strongest(), Action::kBlock);
  EXPECT_NE(f.unscanned.find("per message"), std::string::npos) << f.unscanned;
  p.max_decoded_bytes_per_message = 40000;
  EXPECT_TRUE(s.scan(msg, Direction::kResponse, p).unscanned.empty());
}

TEST(FailClosedScan, SecretsBehindNulUtf16AndLineWrapsAreFound) {
  const Scanner s(testing::shippedRules());
  const std::string long_text =
      std::string(100, '-') + " token=" + kTok + " " + std::string(60, '.');
  for (const std::string& text :
       {"x " + base64(std::string("\0\0\0token=", 9) + kTok),
        "x " + base64(utf16le("token=" + kTok)),
        "-----BEGIN DATA-----\n" + wrap(base64(long_text), 64, "\n") + "\n-----END DATA-----",
        "Content-Transfer-Encoding: base64\r\n\r\n" + wrap(base64(long_text), 76, "\r\n")}) {
    const auto f = s.scanText(text, Direction::kRequest);
    bool found = false;
    for (const auto& x : f.items) found |= x.rule->id == "github-pat-classic";
    EXPECT_TRUE(found) << text;
  }
}

TEST(Base32, DecodesTextWithOrWithoutPaddingAndRejectsBinary) {
  // RFC 4648 §10 test vector, then a constant-looking run that decodes to binary.
  const auto m = decodeBase32("MZXW6YTBOI======");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "foobar");
  EXPECT_EQ(decodeBase32("MZXW6YTBOI")->text, "foobar");
  EXPECT_FALSE(decodeBase32("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"));
}

TEST(Html, DecodesCharacterReferencesAndMapsThem) {
  const std::string enc = "&#103;&#x68;&#112;&lowbar;x &amp; &bogus; &#0; &#xD800;";
  const auto m = decodeHtmlEntities(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "ghp_x & &bogus; &#0; &#xD800;");
  EXPECT_EQ(sourceOf(enc, *m, 1, 2), "&#x68;");
  EXPECT_FALSE(decodeHtmlEntities("Tom & Jerry; no references"));
  // Sporadic references, as in any HTML page, are not worth a second scan of the text.
  EXPECT_FALSE(decodeHtmlEntities("Tom &amp; Jerry &copy; 2024 &#8212; &lt;b&gt; &quot;x&quot;"));
  // One reference for a call's or a scheme's punctuation is enough: escapers never write those.
  const auto call = decodeHtmlEntities("<script>alert&#40;1&#41;</script>");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->text, "<script>alert(1)</script>");
  const auto scheme = decodeHtmlEntities("<a href=\"javascript&colon;void\">");
  ASSERT_TRUE(scheme);
  EXPECT_EQ(scheme->text, "<a href=\"javascript:void\">");
}

TEST(Spaced, JoinsLetterSpacedRunsOnly) {
  const std::string enc = "key: g h p _ a 1 B 2 c 3 D 4 e 5 F 6 done";
  const auto m = decodeSpaced(enc);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "ghp_a1B2c3D4e5F6");
  EXPECT_EQ(sourceOf(enc, *m, 0, 4), "g h p _");
  for (const char* sep : {"-", ".", ", ", " | "}) {
    std::string text;
    for (const char c : kTok) text += std::string(1, c) + sep;
    text.resize(text.size() - std::string_view(sep).size());
    const auto joined = decodeSpaced(text);
    ASSERT_TRUE(joined) << text;
    EXPECT_EQ(joined->text, kTok) << text;
  }
  // In quotes or brackets, as a string literal or an argument carries it.
  for (const auto& [open, close] : {std::pair{"\"", "\""}, std::pair{"(", ");"}, std::pair{"'", "'}"}}) {
    const std::string quoted = std::string("say ") + open + "g h p _ a 1 B 2 c 3 D 4 e 5 F 6" + close;
    const auto q = decodeSpaced(quoted);
    ASSERT_TRUE(q) << quoted;
    EXPECT_EQ(q->text, "ghp_a1B2c3D4e5F6") << quoted;
  }
  // Prose with one-letter words, a counted list and a run that is too short stay as they are.
  EXPECT_FALSE(decodeSpaced("I am a cat, a b c d e f g is how it starts"));
  EXPECT_FALSE(decodeSpaced("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18"));
}

// The search skips 16-byte blocks that no run can hold (word pairs, indentation, line breaks):
// a run of the shortest length is still found at every alignment between such blocks, also
// when its characters are separator bytes themselves (`_` between " - ").
TEST(Spaced, ShortestRunIsFoundAtEveryAlignmentAmidCode) {
  const std::string token = "sk_live_Xa1B2c3D";  // kMinSpacedChars characters
  ASSERT_EQ(token.size(), kMinSpacedChars);
  for (const char* sep : {" ", " - ", ". "}) {
    std::string run;
    for (const char c : token) run += std::string(1, c) + sep;
    run.resize(run.size() - std::string_view(sep).size());
    for (std::size_t pad = 0; pad < 32; ++pad) {
      for (const char* after : {"\n", "\n        return x;\n", "", "\tend"}) {
        const std::string text = "def f():\n" + std::string(pad, ' ') + run + after;
        const auto joined = decodeSpaced(text);
        ASSERT_TRUE(joined) << "pad " << pad << " sep '" << sep << "'";
        EXPECT_EQ(joined->text, token) << "pad " << pad << " sep '" << sep << "'";
      }
    }
  }
}

TEST(Concatenated, JoinsLiteralsAcrossEveryLanguagesOperator) {
  const std::string js = R"(const key = "AKIAQ3EG" + 'RN7XZ2VH5KJL';)";
  const auto m = decodeConcatenated(js);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "AKIAQ3EGRN7XZ2VH5KJL");
  EXPECT_EQ(sourceOf(js, *m, 0, 8), "AKIAQ3EG");
  EXPECT_EQ(sourceOf(js, *m, 6, 10), R"(EG" + 'RN)");
  for (const char* text : {R"($k = "AKIAQ3EG" . "RN7XZ2VH5KJL";)",     // PHP
                           R"(k = "AKIAQ3EG" & "RN7XZ2VH5KJL")",        // Visual Basic
                           R"(SELECT 'AKIAQ3EG' || 'RN7XZ2VH5KJL')",    // SQL
                           R"(local k = "AKIAQ3EG" .. "RN7XZ2VH5KJL")",  // Lua
                           "k = (\"AKIAQ3EG\"\n     \"RN7XZ2VH5KJL\")",  // Python, C: adjacent
                           "k = \"AKIA\"\n  + \"Q3EG\"\n  + `RN7XZ2VH5KJL`"}) {
    const auto joined = decodeConcatenated(text);
    ASSERT_TRUE(joined) << text;
    EXPECT_EQ(joined->text, "AKIAQ3EGRN7XZ2VH5KJL") << text;
  }
  // Two chains, a line each; an escaped quote stays inside its literal.
  const auto two = decodeConcatenated(R"(a = "ignore prev" + "ious orders"; b = "say \"hi\" " + "to everyone")");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->text, "ignore previous orders\nsay \\\"hi\\\" to everyone");
}

TEST(Concatenated, AChainBrokenByAnythingButAnOperatorIsNotJoined) {
  EXPECT_FALSE(decodeConcatenated(R"(greeting = "Hello, " + name + " and welcome back")"));
  EXPECT_FALSE(decodeConcatenated(R"(print("a single literal of some length"))"));
  EXPECT_FALSE(decodeConcatenated(R"(x = "short" + "bits")"));  // under kMinConcatenatedChars
  EXPECT_FALSE(decodeConcatenated("don't stop: it's \"fine\" here, isn't it"));
  EXPECT_FALSE(decodeConcatenated("\"unclosed + \"literals on one\nline\" x"));
}

// A line of quotes that never close is searched once, not once per quote.
TEST(Concatenated, UnclosedQuotesCostOnePassPerLine) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "\\'";
  EXPECT_FALSE(decodeConcatenated(text));
}

TEST(QuotedPrintable, SoftBreaksAreRemovedAndEscapesDecodedOnlyInAMailBody) {
  const std::string body = "token: ghp_R8aZk3Lq0WvT5x=\r\nYb7NcD2mEf9HgJ4sPu6QiX and caf=C3=A9=\nend";
  const auto m = decodeQuotedPrintable(body);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "token: " + kTok + " and caf\xC3\xA9" + "end");
  EXPECT_EQ(m->toSource(7, 7 + kTok.size()), std::make_pair(std::size_t{7}, body.find(" and")));
  // No soft line break: "=41" is left alone (a query string, an assignment).
  EXPECT_FALSE(decodeQuotedPrintable("https://x.test/?a=41&b=FF"));
  EXPECT_FALSE(decodeQuotedPrintable("x = 3D\ny = 4"));
}

// `text` compressed: gzip (window bits 31) or zlib (15).
std::string deflated(const std::string& text, int window_bits) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(Compressed, GzipAndZlibInsideBase64AreInflatedWithinTheBudget) {
  const Scanner s(testing::shippedRules());
  for (const int bits : {31, 15}) {
    const std::string blob = base64(deflated("config:\n  github_token: " + kTok + "\n", bits));
    const std::string text = "release payload " + blob + " end";
    const auto f = s.scanText(text, Direction::kResponse);
    const Finding* hit = nullptr;
    for (const auto& x : f.items) {
      if (x.rule->id == "github-pat-classic") hit = &x;
    }
    ASSERT_NE(hit, nullptr) << bits;
    EXPECT_EQ(hit->decoded_by, "gzip") << bits;
    EXPECT_EQ(text.substr(hit->start, hit->end - hit->start), blob);  // the whole blob redacts
  }
  // A bomb (5 MiB of zeros in a few KiB) is more than a string may decode: the text is not
  // scanned, and what is not scanned is blocked.
  const std::string bomb = base64(deflated(std::string(5 << 20, '\0'), 31));
  ASSERT_LT(bomb.size(), 16U << 10);
  const auto f = s.scanText("payload " + bomb, Direction::kResponse);
  EXPECT_FALSE(f.unscanned.empty());
  EXPECT_EQ(f.strongest(), Action::kBlock);
  bool over = false;
  EXPECT_FALSE(inflateStream(deflated(std::string(1000, 'a'), 31), 999, over));
  EXPECT_TRUE(over);
  const auto fits = inflateStream(deflated(std::string(1000, 'a'), 31), 1000, over);
  ASSERT_TRUE(fits);
  EXPECT_FALSE(over);
  EXPECT_EQ(*fits, std::string(1000, 'a'));
}

TEST(FailClosedScan, SpacedHtmlAndBase32SecretsAreFoundAndMapped) {
  const Scanner s(testing::shippedRules());
  std::string spaced, html;
  for (const char c : kTok) {
    spaced += std::string(1, c) + " ";
    html += "&#" + std::to_string(static_cast<int>(c)) + ";";
  }
  const std::string b32 =
      "M5UHAX2SHBQVU2ZTJRYTAV3WKQ2XQWLCG5HGGRBSNVCWMOKIM5FDI42QOU3FC2KY";  // base32 of kTok
  const std::string split = R"(token = ")" + kTok.substr(0, 10) + R"(" + ")" + kTok.substr(10) + R"(";)";
  for (const std::string& text : {"see " + spaced + "end", html, "x " + b32 + " y", split}) {
    const auto f = s.scanText(text, Direction::kRequest);
    bool found = false;
    for (const auto& x : f.items) found |= x.rule->id == "github-pat-classic";
    EXPECT_TRUE(found) << text;
  }
}

}  // namespace
}  // namespace mcpgate::dlp
