// How the scanner confirms what Hyperscan reports: RE2 searches around each report (a keyword's
// reach, a prefilter's window, a match that begins inside the previous one), and the two engines
// must agree on what a pattern matches. Most cases here were found by the dlp_scan fuzzer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "dlp/hs_util.h"
#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

using nlohmann::json;
using testing::findRule;
using testing::ruleIds;
using testing::shippedRules;

TEST(Scanner, KeywordsMaySitInTheJsonKey) {
  const Scanner s(shippedRules());
  // A Twilio API key SID only counts next to the word twilio; here the key names it.
  const json msg = {{"env", {{"TWILIO_API_KEY", "SK0123456789abcdef0123456789abcdef"}}}};
  EXPECT_NE(findRule(s.scan(msg, Direction::kRequest), "twilio-api-key"), nullptr);
  const json other = {{"env", {{"SOME_ID", "SK0123456789abcdef0123456789abcdef"}}}};
  EXPECT_EQ(findRule(s.scan(other, Direction::kRequest), "twilio-api-key"), nullptr);
}

TEST(Scanner, KeywordGatedRulesFindTheirKeywordInTextOrKey) {
  const Scanner s(shippedRules());
  // phone-number-us has `prefilter: keywords`: Hyperscan looks only for the keywords, so a
  // keyword far before the number, or only in the JSON key, must still lead to the number.
  const std::string filler(200, 'x');
  const json text = {{"note", "Phone: see below " + filler + " (415) 555-0132"}};
  EXPECT_NE(findRule(s.scan(text, Direction::kRequest), "phone-number-us"), nullptr);
  const json keyed = {{"contact", {{"mobile_phone", "(415) 555-0132"}}}};
  EXPECT_NE(findRule(s.scan(keyed, Direction::kRequest), "phone-number-us"), nullptr);
  const json decoded = {{"mobile_phone", "KDQxNSkgNTU1LTAxMzI="}};  // base64 of the number
  EXPECT_NE(findRule(s.scan(decoded, Direction::kRequest), "phone-number-us"), nullptr);
  const json plain = {{"build", "(415) 555-0132"}};
  EXPECT_EQ(findRule(s.scan(plain, Direction::kRequest), "phone-number-us"), nullptr);
}

// One keyword, several keys after it: each is the keyword's, so each is found, not only the
// first (found by the dlp_scan fuzzer: redacting the first brought the second nearer the
// keyword, and a second scan found a key the first had let through).
TEST(Scanner, EveryKeyNearOneKeywordIsFoundNotOnlyTheFirst) {
  const Scanner s(shippedRules());
  const std::vector<std::string> keys = {
      "re8jwk48k8issccxiqg6ad4lr2ecmrki8cj2haoy", "ufymuwddgqpkefae2oov4ecxu8lgopvur6zndadv",
      "4e6344326d45663948674a34735hp07536516958", "q9w8e7r6t5y4u3i2o1p0a9s8d7f6g5h4j3k2l1z0",
      "mnbvcxzlkjhgfdsapoiuytrewq1234567890abcd"};
  std::string text = "hunter keys:";
  for (const auto& key : keys) text += " " + key + ",";
  const auto found = s.scanText(text, Direction::kRequest);
  std::size_t hunter = 0;
  for (const auto& f : found.items) {
    if (f.rule->id == "hunter-api-key") ++hunter;
  }
  EXPECT_EQ(hunter, keys.size()) << text;
  // The same after a second keyword report inside the first one's window.
  const auto twice =
      s.scanText("hunter " + keys[0] + " hunter " + keys[1] + " " + keys[2], Direction::kRequest);
  hunter = 0;
  for (const auto& f : twice.items) {
    if (f.rule->id == "hunter-api-key") ++hunter;
  }
  EXPECT_EQ(hunter, 3u);
}

// A match can begin inside the rule's previous match: in a shell one-liner the value class of
// env-file-secret (`[^\s"'$]{12,}`) takes `;export`, and the next `export NPM_TOKEN=` starts
// in it. The fuzzer found this (tests/fuzz/corpus/dlp_scan/regression-env-file-overlap): the
// second token was found only once the first one was masked.
TEST(Scanner, AMatchStartingInsideThePreviousOneIsFound) {
  const Scanner s(shippedRules());
  const std::string first = "gho7Qm2Xv9KpL4tR8wZ";
  const std::string second = "npm5Hk8Jd3Fs6Ga1Zx0";
  const std::string text = "export GH_TOKEN=" + first + ";export NPM_TOKEN=" + second + " && make";
  const auto found = s.scanText(text, Direction::kRequest);
  std::vector<std::string> secrets;
  for (const auto& f : found.items) {
    if (f.rule->id == "env-file-secret") secrets.push_back(text.substr(f.start, f.end - f.start));
  }
  ASSERT_EQ(secrets.size(), 2u) << ::testing::PrintToString(secrets);
  EXPECT_EQ(secrets[0], first + ";export");
  EXPECT_EQ(secrets[1], second);
}

// Vertical tab is white space to Hyperscan (PCRE's \s) and was not to RE2, so RE2 saw a match
// of env-file-secret whose value ran through "\v...export" where Hyperscan saw none, resumed
// after it and lost the real one beginning at that "export". The fuzzer found this
// (tests/fuzz/corpus/dlp_scan/regression-vertical-tab).
TEST(Scanner, VerticalTabIsWhiteSpaceToBothEngines) {
  const Scanner s(shippedRules());
  const std::string secret = "q7Zt2Lm9Xw4Rb8Kp";
  const std::string text = "export TOKEN=abcd\vSexport TOKEN=" + secret;
  const auto found = s.scanText(text, Direction::kRequest);
  std::vector<std::string> secrets;
  for (const auto& f : found.items) {
    if (f.rule->id == "env-file-secret") secrets.push_back(text.substr(f.start, f.end - f.start));
  }
  EXPECT_EQ(secrets, std::vector<std::string>{secret});
  EXPECT_EQ(re2Expression(R"(a\s+[^\s"]\S[\s\S])"),
            R"(a[\t\n\x0B\f\r ]+[^\t\n\x0B\f\r "][^\t\n\x0B\f\r ][\t\n\x0B\f\r \S])");
  EXPECT_EQ(re2Expression(R"(\\s)"), R"(\\s)");  // an escaped backslash, then "s"
}

// A keyword-gated rule (copper-api-key: `\b([a-z0-9]{32})\b` near "copper") is searched only
// where a match could have the keyword within kKeywordBefore before it or kKeywordAfter after
// it, and dense keywords do not search a byte twice. Whatever the layout, a key is found exactly
// when a "copper" lies in [start - 256, end + 32].
TEST(Scanner, AKeywordGatedKeyIsFoundExactlyWhenItsKeywordIsInReach) {
  const Scanner s(shippedRules());
  std::uint64_t state = 7;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>(state >> 33);
  };
  const std::vector<std::string> words = {"amber", "river", "stone", "cloud", "maple", "fern"};
  int found_some = 0, missed_some = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> keys;
    const std::size_t pieces = 20 + next() % 200;
    for (std::size_t i = 0; i < pieces; ++i) {
      if (!text.empty()) text += ' ';
      const std::size_t roll = next() % 100;
      if (roll < 12) {
        text += "copper";
      } else if (roll < 15) {
        std::string key;
        for (int k = 0; k < 32; ++k) key += "qrstuvwxyz0123456789"[next() % 20];
        key[0] = 'q';  // never all hex or all letters (the rule's excludes)
        key[1] = '7';
        keys.emplace_back(text.size(), text.size() + key.size());
        text += key;
      } else {
        text += words[next() % words.size()];
      }
    }
    const auto found = s.scanText(text, Direction::kRequest);
    for (const auto& [ks, ke] : keys) {
      bool reach = false;
      for (std::size_t at = text.find("copper"); at != std::string::npos;
           at = text.find("copper", at + 1)) {
        reach = reach || (at + 256 >= ks && at + 6 <= ke + 32);
      }
      const bool got = std::ranges::any_of(found.items, [&](const Finding& f) {
        return f.rule->id == "copper-api-key" && f.start == ks && f.end == ke;
      });
      EXPECT_EQ(got, reach) << "round " << round << " key at " << ks << "\n" << text;
      (got ? found_some : missed_some) += 1;
    }
  }
  EXPECT_GT(found_some, 100);
  EXPECT_GT(missed_some, 20);
}

// A prefilter's report is not its match's end: email-address reports at "@x", and its match may
// end a window later. A report with no match in its window (`q@z`) must not mark later reports
// inside that window as searched: the address after it reaches past the window's end. The
// fuzzer found this (tests/fuzz/corpus/dlp_scan/regression-email-past-the-window).
TEST(Scanner, APrefilterReportWithNoMatchDoesNotHideTheNextAddress) {
  const Scanner s(shippedRules());
  const std::string address = "jane.doe@" + std::string(40, 'm') + "ail.org";
  const std::string text = "ping q@z then" + std::string(560, ' ') + "write to " + address + " now";
  const auto found = s.scanText(text, Direction::kRequest);
  bool seen = false;
  for (const auto& f : found.items) {
    seen =
        seen || (f.rule->id == "email-address" && text.substr(f.start, f.end - f.start) == address);
  }
  EXPECT_TRUE(seen) << ::testing::PrintToString(ruleIds(found));
}
}  // namespace
}  // namespace mcpgate::dlp
