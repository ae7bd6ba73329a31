// The token decoders of dlp/decode_token.cc: tokens reversed, in ROT13 or broken across lines
// (by their rules' own prefixes), values broken after a credential's name, URLs broken or
// written backwards; and what the scanner finds through them.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "dlp/decode.h"
#include "dlp/hs_util.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

const std::string kTok = "ghp_R8aZk3Lq0WvT5xYb7NcD2mEf9HgJ4sPu6QiX";
std::string rot13Of(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>('a' + (c - 'a' + 13) % 26);
    if (c >= 'A' && c <= 'Z') c = static_cast<char>('A' + (c - 'A' + 13) % 26);
  }
  return s;
}

TEST(TurnedTokens, AReversedOrRot13TokenIsTurnedBackAndMappedToItsRun) {
  const TokenPrefixes prefixes({"ghp_", "hf_", "AKIA", "sk.live", "ab", "key", "AAAA", "dose"});
  // Left out: "sk.live" (a '.' ends a run), "ab" (too short), and words or runs that begin too
  // much ordinary text: "key", "dose" (lower-case letters only), "AAAA" (one letter).
  EXPECT_EQ(prefixes.size(), 3U);
  const std::string reversed(kTok.rbegin(), kTok.rend());
  const auto back = decodeReversedToken(reversed, prefixes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->text, kTok);
  EXPECT_EQ(back->toSource(0, 4), std::make_pair(reversed.size() - 4, reversed.size()));
  EXPECT_EQ(back->toSource(0, back->text.size()), std::make_pair(std::size_t{0}, reversed.size()));
  const auto rot = decodeRot13Token(rot13Of(kTok), prefixes);
  ASSERT_TRUE(rot);
  EXPECT_EQ(rot->text, kTok);
  // Only runs that a prefix turned ends (reversed) or starts (ROT13) are turned.
  EXPECT_FALSE(decodeReversedToken(kTok, prefixes));
  EXPECT_FALSE(decodeRot13Token(kTok, prefixes));
  EXPECT_FALSE(decodeReversedToken("0123456789abcdef0123456789abcdef", prefixes));
  EXPECT_FALSE(decodeReversedToken("_phg", prefixes));      // a prefix with no body
  EXPECT_FALSE(decodeRot13Token("us_east_1", prefixes));    // ROT13 of "hf_", too short a body
  EXPECT_FALSE(decodeReversedToken(reversed, TokenPrefixes()));
}

TEST(TurnedTokens, PrefixesComeFromTheLiteralStartOfTheSecretGroup) {
  EXPECT_EQ(leadingLiterals("(?:^|[^A-Za-z0-9_-])(ghp_[A-Za-z0-9]{36})(?:[^A-Za-z0-9_-]|$)", 1),
            std::vector<std::string>{"ghp_"});
  EXPECT_EQ(leadingLiterals("(?:^|[^A-Za-z0-9])((?:AKIA|ASIA)[A-Z2-7]{16})", 1),
            (std::vector<std::string>{"AKIA", "ASIA"}));
  EXPECT_EQ(leadingLiterals("\\b(?:xox)[bp]-[0-9]{10}", 0),
            (std::vector<std::string>{"xoxb-", "xoxp-"}));
  // Small classes and optional groups of plain words are expanded; ranges end the prefix.
  EXPECT_EQ(leadingLiterals("(EZ[AT]K[A-Za-z0-9]{54})", 1),
            (std::vector<std::string>{"EZAK", "EZTK"}));
  EXPECT_EQ(leadingLiterals("(xoxe(?:\\.xox[bp])?-[0-9]-[A-Za-z0-9]{60,200})", 1),
            (std::vector<std::string>{"xoxe.xoxb-", "xoxe.xoxp-", "xoxe-"}));
  EXPECT_EQ(leadingLiterals("(sk_[a-c]x)", 1), std::vector<std::string>{"sk_"});
  EXPECT_EQ(leadingLiterals("(?:^|[(])(ya29\\.[0-9A-Za-z_-]{50,})", 1),
            std::vector<std::string>{"ya29."});
  EXPECT_EQ(leadingLiterals("(sk-(?:proj|admin)-[A-Za-z0-9]{40})", 1),
            (std::vector<std::string>{"sk-proj-", "sk-admin-"}));
  EXPECT_TRUE(leadingLiterals("((?:tgp_v1_)?[A-Za-z0-9_-]{40,64})", 1).empty());
  EXPECT_TRUE(leadingLiterals("([a-f0-9]{32})", 1).empty());
  EXPECT_EQ(leadingLiterals("(abcd?ef)", 1), std::vector<std::string>{"abc"});
  EXPECT_EQ(leadingLiterals("[(](x)(tok_[0-9]+)", 2), std::vector<std::string>{"tok_"});
  const auto rules = testing::shippedRules();
  EXPECT_GE(rules->tokenPrefixes().size(), 150U);
}

TEST(TurnedTokens, ATokenBrokenAcrossLinesIsJoinedOnceForEachPlaceItMayEnd) {
  const TokenPrefixes prefixes({"ghp_", "AKIA"});
  const std::string text = "token: " + kTok.substr(0, 15) + "\r\n    " + kTok.substr(15, 10) + "\n" +
                           kTok.substr(25) + "\nnext line";
  const auto m = decodeBrokenTokens(text, prefixes);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, kTok.substr(0, 25) + "\n" + kTok + "\n" + kTok + "next");
  const std::size_t at = m->text.find('\n') + 1;  // the whole token, on the second line
  EXPECT_EQ(m->toSource(at, at + kTok.size()),
            std::make_pair(std::size_t{7}, text.find("\nnext")));
  // No prefix before the break, or nothing after it: nothing to join.
  EXPECT_FALSE(decodeBrokenTokens("plain words\nand more words\n", prefixes));
  EXPECT_FALSE(decodeBrokenTokens("the ghp_ prefix\nmeans classic", prefixes));
  EXPECT_FALSE(decodeBrokenTokens(kTok + "\n\n", prefixes));
  EXPECT_FALSE(decodeBrokenTokens(text, TokenPrefixes()));
}

TEST(TurnedTokens, ABrokenTokenWithoutDigitsIsJoinedWhenItsLettersLookRandom) {
  const TokenPrefixes prefixes({"hf_"});
  const std::string text = "  hf_token: hf_gbeZVKETC\r\n      fgEXgllUPUnKHVOlSkVrTWdjd\r\n  other: 1";
  const auto m = decodeBrokenTokens(text, prefixes);
  ASSERT_TRUE(m);
  // Each place the token may end is a line ("other" is a word of the next line).
  EXPECT_EQ(m->text, "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\nhf_gbeZVKETCfgEXgllUPUnKHVOlSkVrTWdjdother");
  // A name in code and the next line's word: no digits, and at most a capital per word.
  EXPECT_FALSE(decodeBrokenTokens("hf_helper_name\nreturn_value\n", prefixes));
  EXPECT_FALSE(decodeBrokenTokens("hf_HelperName\nReturnValue\n", prefixes));
}

TEST(TurnedTokens, AnAssignedValueBrokenAcrossLinesIsJoinedWithItsName) {
  const std::string env = "PAGERDUTY_TOKEN=u+H3kviKPx\nIqw_4cCp4c\n";
  auto m = decodeBrokenAssignments(env);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "PAGERDUTY_TOKEN=u+H3kviKPxIqw_4cCp4c");
  EXPECT_EQ(m->toSource(16, m->text.size()), std::make_pair(std::size_t{16}, env.size() - 1));
  const std::string json = "{\n  \"apiKey\": \"AbC3dEf9GhIjK\n    LmN0pQr5StU\",\n  \"n\": 1\n}";
  m = decodeBrokenAssignments(json);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "apiKey\": \"AbC3dEf9GhIjKLmN0pQr5StU");
  // The next line is another assignment, the name holds no credential word, a comparison, a
  // value with nothing random in it, or one too short: nothing joined.
  EXPECT_FALSE(decodeBrokenAssignments("password: hunter2hunter\nnext_key: value\n"));
  EXPECT_FALSE(decodeBrokenAssignments("api_key: Ab3dE5fG7hJ9\nother_key=1\n"));
  m = decodeBrokenAssignments("secret = QUJDREVGR0hJSktM\nTU5PUA==\n");  // padded base64
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "secret = QUJDREVGR0hJSktMTU5PUA");
  EXPECT_FALSE(decodeBrokenAssignments("username = abcdefgh12\nXYZ12345\n"));
  EXPECT_FALSE(decodeBrokenAssignments("if token == abcdefgh12\nfoo1234\n"));
  EXPECT_FALSE(decodeBrokenAssignments("secret_name = my_secret_value\nanother_value\n"));
  EXPECT_FALSE(decodeBrokenAssignments("api_key = abc12\nXYZ12345\n"));
}

TEST(TurnedTokens, AUrlWrittenBackwardsIsTurnedAround) {
  const std::string url = "redis://deploy:K3eH4w8UMPpP39_2@redis.internal:6379/0";
  const std::string backwards(url.rbegin(), url.rend());
  const std::string text = "the url is " + backwards + ", keep it safe";
  const auto m = decodeReversedUrls(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text, "," + url);  // up to the space: the comma came along, first when turned
  EXPECT_EQ(m->toSource(1, 1 + url.size()), std::make_pair(std::size_t{11}, 11 + url.size()));
  // Forward URLs and a "//:" with nothing before or after it turn nothing.
  EXPECT_FALSE(decodeReversedUrls("see https://example.com/a and ftp://host/b"));
  EXPECT_FALSE(decodeReversedUrls(""));
  const auto lone = decodeReversedUrls("a //: b");
  EXPECT_FALSE(lone);
}

TEST(TurnedTokens, AUrlBrokenAcrossLinesIsJoined) {
  const std::string text = "FTP_URL=ftps://etl:cXLIKZWueQgmuD\n.9@cache.local:990/upload\nnext words";
  const auto m = decodeBrokenUrls(text);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->text,
            "FTP_URL=ftps://etl:cXLIKZWueQgmuD.9@cache.local:990/upload\n"
            "FTP_URL=ftps://etl:cXLIKZWueQgmuD.9@cache.local:990/uploadnext");
  EXPECT_EQ(m->toSource(0, 8), std::make_pair(std::size_t{0}, std::size_t{8}));
  // A "jdbc:mysql:/" cut after its first slash, indented on the next line.
  const auto jdbc = decodeBrokenUrls("  url: jdbc:mysql:/\r\n      /db.internal:3306/shop?password=x\r\n");
  ASSERT_TRUE(jdbc);
  EXPECT_EQ(jdbc->text.substr(0, jdbc->text.find('\n')),
            "jdbc:mysql://db.internal:3306/shop?password=x");
  // No scheme on the line before the break, or nothing after it.
  EXPECT_FALSE(decodeBrokenUrls("plain words\nand more\n"));
  EXPECT_FALSE(decodeBrokenUrls("see https://example.com\n\n"));
}

TEST(FailClosedScan, TurnedBrokenAndQuotedPrintableSecretsAreFoundAndRedactedWhereTheyAre) {
  const Scanner s(testing::shippedRules());
  const std::string aws = "AKIAQ3EGRN7XZ2VH5KJL";
  const std::string reversed_tok(kTok.rbegin(), kTok.rend());
  const std::string reversed_aws(aws.rbegin(), aws.rend());
  const std::string sentence = "deploy with ghp key " + kTok;
  for (const auto& [text, secret, rule, by] :
       {std::tuple{"token: " + reversed_tok + " (backwards)", reversed_tok, "github-pat-classic", "reversed"},
        std::tuple{"k=" + reversed_aws, reversed_aws, "aws-access-key-id", "reversed"},
        std::tuple{std::string(sentence.rbegin(), sentence.rend()), reversed_tok,
                   "github-pat-classic", "reversed"},
        std::tuple{"my key is " + rot13Of(kTok) + " ok", rot13Of(kTok), "github-pat-classic", "rot13"},
        std::tuple{rot13Of("aws " + aws), rot13Of(aws), "aws-access-key-id", "rot13"},
        std::tuple{"export K=" + aws.substr(0, 8) + "\n" + aws.substr(8) + "\n", aws.substr(0, 8) + "\n" + aws.substr(8),
                   "aws-access-key-id", "line-broken"},
        std::tuple{std::string("PAGERDUTY_TOKEN=u+H3kviKPx\nIqw_4cCp4c\n"), std::string("u+H3kviKPx\nIqw_4cCp4c"),
                   "pagerduty-api-key", "line-broken-value"},
        std::tuple{"url: " + std::string("moc.elpmaxe.bd@8fH2kXq9TzL3vW:nimda//:sider") + " ok",
                   std::string("8fH2kXq9TzL3vW"), "redis-uri-credentials",
                   "reversed-url"},
        std::tuple{std::string("REDIS_URL=redis://:aHGQ1Tn38wyKMb5\n#7@redis.internal:6379/0\n"),
                   std::string("aHGQ1Tn38wyKMb5\n#7"), "redis-uri-password-only", "line-broken-url"},
        std::tuple{"Content-Transfer-Encoding: quoted-printable\r\n\r\nyour key is " + aws.substr(0, 11) +
                       "=\r\n" + aws.substr(11) + " =E2=80=94 keep it",
                   aws.substr(0, 11) + "=\r\n" + aws.substr(11), "aws-access-key-id", "quoted-printable"}}) {
    const auto f = s.scanText(text, Direction::kRequest);
    const Finding* hit = nullptr;
    for (const auto& x : f.items) {
      if (x.rule->id == rule) hit = &x;
    }
    ASSERT_NE(hit, nullptr) << text;
    EXPECT_EQ(hit->decoded_by, by) << text;
    EXPECT_EQ(text.substr(hit->start, hit->end - hit->start), secret) << text;
  }
  // Reversed prose and reversed hashes are not reported, nor code whose line ends in a name that
  // starts like a token (Braintree's "access_token"): a joined line answers only to prefix rules.
  for (const std::string& text : {std::string("sdrawkcab nettirw si ecnetnes sihT"),
                                 std::string("        lower, upper = self.access_token_length\n"
                                             "        return (set(request_token) <= self.safe\n"),
                                 std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")}) {
    EXPECT_TRUE(s.scanText(text, Direction::kRequest).items.empty()) << text;
  }
}

}  // namespace
}  // namespace mcpgate::dlp
