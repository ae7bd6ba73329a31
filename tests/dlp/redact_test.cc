#include "dlp/redact.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace mcpgate::dlp {
namespace {

using nlohmann::json;

constexpr std::string_view kToken = "ghp_R8aZk3Lq0WvT5xYb7NcD2mEf9HgJ4sPu6QiX";

std::shared_ptr<const RuleSet> styleRules() {
  return testing::rulesFromYaml(R"(rules:
  - id: tok
    pattern: 'tok_[A-Za-z0-9]{12}'
    action: redact
  - id: masked
    pattern: 'card_[0-9]{12}'
    action: redact
    redact: {mask: 4}
  - id: hashed
    pattern: 'acct_[0-9]{8}'
    action: redact
    redact: hash
  - id: warned
    pattern: 'warn_[0-9]{6}'
    action: warn
)");
}

TEST(Redact, ReplacesNestedAndEscapedValuesAndKeepsJsonValid) {
  const Scanner s(testing::shippedRules());
  json msg = json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",
    "text":"line1\n\"quoted\" \\ path C:\\tmp\n token=)" +
                         std::string(kToken) + R"( \u00e9\u4e2d"}],
    "meta":{"k\"ey":["x", ")" +
                         std::string(kToken) + R"("]}}})");
  const auto f = s.scan(msg, Direction::kResponse);
  ASSERT_EQ(f.items.size(), 2u);
  auto n = redact(msg, f);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 2u);
  const std::string out = msg.dump();
  EXPECT_EQ(out.find(kToken), std::string::npos);
  const json back = json::parse(out);  // still valid JSON
  EXPECT_EQ(back["result"]["content"][0]["text"],
            "line1\n\"quoted\" \\ path C:\\tmp\n token=[REDACTED:github-pat-classic] \u00e9\u4e2d");
  EXPECT_EQ(back["result"]["meta"]["k\"ey"][1], "[REDACTED:github-pat-classic]");
  EXPECT_TRUE(s.scan(back, Direction::kResponse).empty());
}

TEST(Redact, RemovesTheInvisibleCharactersOfAnObfuscatedSecret) {
  const Scanner s(testing::shippedRules());
  std::string hidden;
  for (const char c : kToken) {
    if (!hidden.empty()) hidden += "\u200B";
    hidden.push_back(c);
  }
  json msg = {{"text", "before " + hidden + " after"}};
  const auto f = s.scan(msg, Direction::kRequest);
  ASSERT_FALSE(f.empty());
  ASSERT_TRUE(redact(msg, f));
  EXPECT_EQ(msg["text"], "before [REDACTED:github-pat-classic] after");
}

TEST(Redact, RedactsEncodedSecretsWholeAndKeys) {
  const Scanner s(testing::shippedRules());
  json msg = {{std::string(kToken), "value"},
              {"b64", "x Z2hwX1I4YVprM0xxMFd2VDV4WWI3TmNEMm1FZjlIZ0o0c1B1NlFpWA== y"}};
  const auto f = s.scan(msg, Direction::kRequest);
  ASSERT_EQ(f.items.size(), 2u);
  ASSERT_TRUE(redact(msg, f));
  EXPECT_EQ(msg["[REDACTED:github-pat-classic]"], "value");
  EXPECT_EQ(msg["b64"], "x [REDACTED:github-pat-classic] y");
}

TEST(Redact, StylesMaskHashAndReplace) {
  const auto rules = styleRules();
  ASSERT_TRUE(rules);
  const Scanner s(rules);
  json msg = {{"a", "tok_abcdefABCDEF"},
              {"b", "card_123456789012"},
              {"c", "acct_12345678"},
              {"d", "acct_12345678"},
              {"e", "warn_123456"}};
  const auto f = s.scan(msg, Direction::kRequest);
  ASSERT_EQ(f.items.size(), 5u);
  RedactOptions opts{"k1"};
  ASSERT_TRUE(redact(msg, f, opts));
  EXPECT_EQ(msg["a"], "[REDACTED:tok]");
  EXPECT_EQ(msg["b"], "*************9012");
  const std::string h = msg["c"];
  EXPECT_TRUE(h.starts_with("[REDACTED:hashed:")) << h;
  EXPECT_EQ(h.size(), std::string("[REDACTED:hashed:]").size() + 16);
  EXPECT_EQ(msg["c"], msg["d"]);       // equal secrets correlate
  EXPECT_EQ(msg["e"], "warn_123456");  // warn findings are not rewritten

  json again = {{"c", "acct_12345678"}};
  ASSERT_TRUE(redact(again, s.scan(again, Direction::kRequest), RedactOptions{"k2"}));
  EXPECT_NE(again["c"], h);  // another key, another token
}

TEST(Redact, OverlappingFindingsBecomeOneReplacement) {
  const auto rules = testing::rulesFromYaml(R"(rules:
  - id: long
    pattern: 'abc_[0-9]{8}'
    action: redact
  - id: short
    pattern: '[0-9]{8}_x'
    action: redact
)");
  ASSERT_TRUE(rules);
  const Scanner s(rules);
  json msg = {{"v", "pre abc_12345678_x post"}};
  ASSERT_TRUE(redact(msg, s.scan(msg, Direction::kRequest)));
  EXPECT_EQ(msg["v"], "pre [REDACTED:long] post");
}

TEST(Redact, MaskKeepsWholeUtf8CharactersAndNeverTheWholeSecret) {
  Rule r;
  r.id = "m";
  r.redact = RedactStyle::kMask;
  r.mask_keep = 3;
  EXPECT_EQ(replacement(r, "abcdefgh"), "*****fgh");
  EXPECT_EQ(replacement(r, "ab"), "*b");
  // At most N bytes are kept, and only whole characters.
  EXPECT_EQ(replacement(r, "xx\u00e9\u00e9"), "***\u00e9");
}

TEST(Redact, PreviewNeverShowsTheSecret) {
  EXPECT_EQ(maskedPreview("short"), "*****");
  const std::string p = maskedPreview(kToken);
  EXPECT_EQ(p.find(kToken), std::string::npos);
  EXPECT_TRUE(p.starts_with("ghp_")) << p;
  EXPECT_LE(p.size(), 24u);
}

TEST(Redact, StalePointerIsAnError) {
  const Scanner s(testing::shippedRules());
  json msg = {{"a", std::string(kToken)}};
  const auto f = s.scan(msg, Direction::kRequest);
  json other = {{"b", 1}};
  EXPECT_FALSE(redact(other, f).has_value());
}

}  // namespace
}  // namespace mcpgate::dlp
