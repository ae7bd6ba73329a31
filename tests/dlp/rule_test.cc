#include "dlp/rule.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

std::string loadError(const std::string& yaml) {
  auto r = loadRuleText(yaml, "pack.yaml");
  EXPECT_FALSE(r.has_value());
  return r ? std::string() : r.error().message;
}

TEST(RuleLoad, ParsesEveryField) {
  auto rules = loadRuleText(R"(defaults:
  category: secret
  action: redact
rules:
  - id: demo
    description: A demo rule
    severity: critical
    pattern: 'demo_([a-z0-9]{8})'
    flags: [caseless]
    secret_group: 1
    keywords: [Demo]
    min_length: 8
    max_length: 8
    validator: {entropy: 2.5}
    exclude: ['^0+$']
    stopwords: [EXAMPLE]
    directions: request
    redact: {mask: 2}
    examples:
      match:
        - 'demo demo_a1b2c3d4'
        - {text: 'x demo_a1b2c3d4', span: [7, 15]}
      no_match: ['demo_short']
)",
                            "pack.yaml");
  ASSERT_TRUE(rules) << rules.error().message;
  ASSERT_EQ(rules->size(), 1u);
  const Rule& r = (*rules)[0];
  EXPECT_EQ(r.id, "demo");
  EXPECT_EQ(r.category, Category::kSecret);
  EXPECT_EQ(r.severity, Severity::kCritical);
  EXPECT_EQ(r.action, Action::kRedact);
  EXPECT_TRUE(r.caseless);
  EXPECT_EQ(r.secret_group, 1);
  EXPECT_EQ(r.keywords, std::vector<std::string>{"demo"});
  EXPECT_EQ(r.stopwords, std::vector<std::string>{"example"});
  EXPECT_EQ(r.validator, ValidatorKind::kEntropy);
  EXPECT_DOUBLE_EQ(r.min_entropy, 2.5);
  EXPECT_TRUE(r.request);
  EXPECT_FALSE(r.response);
  EXPECT_EQ(r.redact, RedactStyle::kMask);
  EXPECT_EQ(r.mask_keep, 2u);
  ASSERT_EQ(r.match.size(), 2u);
  ASSERT_TRUE(r.match[1].span.has_value());
  EXPECT_EQ(r.match[1].span->first, 7u);
  EXPECT_EQ(r.match[1].line, 22);
  EXPECT_EQ(r.where(), "pack.yaml:5");
}

TEST(RuleLoad, ErrorsCarryFileAndLine) {
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'x('\n"),
            "pack.yaml:2: rule 'a': Hyperscan rejects the pattern: Missing close parenthesis for "
            "group started at index 1.");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'a*'\n"),
            "pack.yaml:2: rule 'a': the pattern matches the empty string");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'abc'\n    severity: severe\n"),
            "pack.yaml:4: severity must be one of low, medium, high, critical");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'abc'\n    colour: red\n"),
            "pack.yaml:4: unknown key 'colour' in rule");
  EXPECT_EQ(
      loadError("rules:\n  - id: a\n    pattern: 'abc'\n  - description: x\n    pattern: y\n"),
      "pack.yaml:4: rule has no 'id'");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'abc'\n    secret_group: 1\n"),
            "pack.yaml:2: rule 'a': secret_group 1 but the pattern has 0 groups");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: 'abc'\n    examples:\n      match: [x]\n"
                      "      maybe: [y]\n"),
            "pack.yaml:6: examples has only 'match' and 'no_match'");
  EXPECT_EQ(loadError("rules:\n  - id: a\n    pattern: [unclosed\n"),
            "pack.yaml:4: end of sequence flow not found");
}

TEST(RuleLoad, RejectsPatternsOnlyOneEngineAccepts) {
  // Lookahead: RE2 has none. Hyperscan rejects it too, so one message says which engine.
  const auto lookahead = loadError("rules:\n  - id: a\n    pattern: 'foo(?=bar)'\n");
  EXPECT_NE(lookahead.find("pack.yaml:2: rule 'a':"), std::string::npos) << lookahead;
  // \C is RE2-only (any byte); Hyperscan refuses it.
  const auto backref = loadError("rules:\n  - id: a\n    pattern: '(a)\\1'\n");
  EXPECT_NE(backref.find("pack.yaml:2: rule 'a':"), std::string::npos) << backref;
}

// A repeat over RE2's 1000 is refused at once, not after Hyperscan spends a second and a
// gigabyte on it (the rule_load fuzzer's slowest inputs were such patterns).
TEST(RuleLoad, HugeRepeatsAreRefusedWithTheLimitNamed) {
  const auto big = loadError("rules:\n  - id: card\n    pattern: '\\b(?:\\d[ -]?){6819}\\b'\n");
  EXPECT_NE(
      big.find(
          "pack.yaml:2: rule 'card': RE2 rejects the pattern: invalid repetition size: {6819}"),
      std::string::npos)
      << big;
  // RE2 reads `{06819}` as text (no leading zeros), Hyperscan as a repeat: refused by name.
  EXPECT_EQ(loadError("rules:\n  - id: card\n    pattern: '(?:\\d[ -]?){06819}'\n"),
            "pack.yaml:2: rule 'card': the repeat count at index 11 has a leading zero (RE2 reads "
            "it as text, Hyperscan as a repeat): write it without the zero");
  EXPECT_NE(loadError("rules:\n  - id: a\n    pattern: 'x{1,02}'\n").find("leading zero"),
            std::string::npos);
  // A zero alone, a brace of text and a brace in a class are fine.
  for (const char* ok : {"x{0,2}y", "x[{01}]", "x\\{01}", "a{x01}"}) {
    EXPECT_TRUE(
        loadRuleText(std::string("rules:\n  - id: a\n    pattern: '") + ok + "'\n", "pack.yaml"))
        << ok;
  }
  const auto pre = loadError(
      "rules:\n  - id: card\n    pattern: 'x[0-9]{12}'\n    prefilter: 'x(?:[0-9]-?){5000}'\n");
  EXPECT_NE(pre.find("pack.yaml:2: rule 'card': RE2 rejects the prefilter"), std::string::npos)
      << pre;
}

TEST(RuleSetLoad, DuplicateIdsAcrossFilesNameBothPlaces) {
  auto a = loadRuleText("rules:\n  - id: dup\n    pattern: 'abc'\n", "a.yaml");
  auto b = loadRuleText("rules:\n\n  - id: dup\n    pattern: 'abd'\n", "b.yaml");
  ASSERT_TRUE(a && b);
  std::vector<Rule> all = *a;
  all.insert(all.end(), b->begin(), b->end());
  auto set = RuleSet::fromRules(std::move(all));
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message, "b.yaml:3: duplicate rule id 'dup' (first defined at a.yaml:2)");
}

TEST(RuleSetLoad, MissingPathIsAnError) {
  const std::vector<std::filesystem::path> paths = {"/nonexistent/rules"};
  auto set = RuleSet::load(paths);
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().message, "/nonexistent/rules: no such rule file or directory");
}

TEST(RuleSetLoad, SerializedDatabaseCacheIsReusedForUnchangedRules) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("mcpgate-dlp-cache-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  auto rules = loadRuleText("rules:\n  - id: a\n    pattern: 'secret_[0-9]{4}'\n", "c.yaml");
  ASSERT_TRUE(rules);
  LoadOptions opts{dir};
  auto first = RuleSet::fromRules(*rules, opts);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE((*first)->fromCache());
  auto second = RuleSet::fromRules(*rules, opts);
  ASSERT_TRUE(second);
  EXPECT_TRUE((*second)->fromCache());
  EXPECT_EQ((*first)->hash(), (*second)->hash());
  (*rules)[0].pattern = "secret_[0-9]{5}";
  auto changed = RuleSet::fromRules(*rules, opts);
  ASSERT_TRUE(changed);
  EXPECT_FALSE((*changed)->fromCache());
  std::filesystem::remove_all(dir);
}

// The cached databases are mapped and scanned in place; one that is damaged, cut short or in
// another format is compiled again (and the cache rewritten), never scanned.
TEST(RuleSetLoad, ADamagedCachedDatabaseIsRecompiledNotScanned) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("mcpgate-dlp-image-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  auto rules = loadRuleText("rules:\n  - id: a\n    pattern: 'secret_[0-9]{4}'\n", "c.yaml");
  ASSERT_TRUE(rules);
  const LoadOptions opts{dir};
  ASSERT_TRUE(RuleSet::fromRules(*rules, opts));
  std::vector<std::filesystem::path> images;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".hsimg") images.push_back(e.path());
  }
  ASSERT_EQ(images.size(), 1U);
  const auto image = images.front();
  const auto whole = std::filesystem::file_size(image);

  const auto scanWithCache = [&](bool expect_cached) {
    auto set = RuleSet::fromRules(*rules, opts);
    ASSERT_TRUE(set) << set.error().message;
    EXPECT_EQ((*set)->fromCache(), expect_cached);
    const Scanner scanner(*set);
    const auto found = scanner.scanText("key secret_1234 here", Direction::kRequest);
    EXPECT_FALSE(found.failed);
    ASSERT_EQ(found.items.size(), 1U);
    EXPECT_EQ(found.items[0].start, 4U);
    EXPECT_TRUE(scanner.scanText("secret_12", Direction::kRequest).items.empty());
  };
  scanWithCache(true);

  const auto damage = [&](std::uintmax_t at) {
    std::fstream f(image, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(at));
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  };
  damage(whole - 100);  // inside the bytecode
  scanWithCache(false);
  scanWithCache(true);  // rewritten whole
  damage(0);            // the header's magic
  scanWithCache(false);
  std::filesystem::resize_file(image, whole / 2);
  scanWithCache(false);
  {
    std::ofstream(image, std::ios::binary | std::ios::trunc) << "not a database";
  }
  scanWithCache(false);
  EXPECT_GT(std::filesystem::file_size(image), whole / 2);  // rewritten whole again
  scanWithCache(true);
  std::filesystem::remove_all(dir);
}

TEST(ShippedPacks, LoadAndMeetTheIssueCounts) {
  const auto rules = testing::shippedRules();
  ASSERT_TRUE(rules);
  std::map<Category, int> counts;
  for (const auto& r : rules->rules()) {
    ++counts[r.category];
    EXPECT_FALSE(r.match.empty()) << r.id;
    EXPECT_FALSE(r.no_match.empty()) << r.id;
    EXPECT_FALSE(r.description.empty()) << r.id;
  }
  EXPECT_GE(counts[Category::kSecret], 120);
  EXPECT_GE(counts[Category::kPii], 10);
  EXPECT_GE(counts[Category::kInjection], 8);
  EXPECT_GE(counts[Category::kCommand], 8);
}

}  // namespace
}  // namespace mcpgate::dlp
