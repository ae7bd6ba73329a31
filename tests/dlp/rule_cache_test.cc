#include "dlp/rule_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

namespace fs = std::filesystem;

const char* const kPack = R"(defaults:
  category: secret
rules:
  - id: demo
    description: A demo token
    pattern: 'demo_[a-z0-9]{8}'
    examples:
      match: ['demo_a1b2c3d4']
      no_match: ['demo_short']
)";

class RuleCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mcpgate-rule-cache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "rules");
    write(kPack);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& yaml) { std::ofstream(dir_ / "rules" / "pack.yaml") << yaml; }
  std::shared_ptr<const RuleSet> load() {
    const std::vector<fs::path> paths = {dir_ / "rules"};
    auto set = RuleSet::load(paths, LoadOptions{dir_ / "cache"});
    EXPECT_TRUE(set) << (set ? "" : set.error().message);
    return set ? *set : nullptr;
  }
  std::vector<fs::path> cachedRuleFiles() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
      if (e.path().extension() == ".rules") out.push_back(e.path());
    }
    return out;
  }
  static std::size_t findings(const std::shared_ptr<const RuleSet>& set, std::string_view text) {
    Policy all;
    all.all_directions = true;
    return Scanner(set).scanText(text, Direction::kRequest, all).items.size();
  }

  fs::path dir_;
};

TEST_F(RuleCacheTest, WarmStartReadsTheParsedRulesFromTheCache) {
  const auto cold = load();
  ASSERT_TRUE(cold);
  const auto files = cachedRuleFiles();
  ASSERT_EQ(files.size(), 1u);
  // Swap the cached rules for a different (valid) set under the same key: a warm start must
  // return what the cache holds, proving it does not parse the YAML again.
  auto cached = deserializeRules([&] {
    std::ifstream in(files[0], std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }());
  ASSERT_TRUE(cached);
  cached->rules[0].id = "demo-from-cache";
  std::ofstream(files[0], std::ios::binary) << serializeRules(*cached);
  const auto warm = load();
  ASSERT_TRUE(warm);
  EXPECT_NE(warm->find("demo-from-cache"), nullptr);
  EXPECT_EQ(findings(warm, "token demo_a1b2c3d4 here"), 1u);
  EXPECT_EQ(findings(warm, "token demo_short here"), 0u);
}

TEST_F(RuleCacheTest, ChangingARuleFileIsNotServedFromTheOldCache) {
  ASSERT_TRUE(load());
  EXPECT_EQ(findings(load(), "x demo_a1b2c3d4 x"), 1u);
  write(std::string(kPack).replace(std::string(kPack).find("{8}"), 3, "{4}"));
  const auto changed = load();
  ASSERT_TRUE(changed);
  EXPECT_EQ(findings(changed, "x demo_a1b2 x"), 1u);
  EXPECT_EQ(cachedRuleFiles().size(), 2u);
  // A file that is now broken is reported, not covered by the cache of the old one.
  write("rules:\n  - id: broken\n    pattern: '('\n");
  const std::vector<fs::path> paths = {dir_ / "rules"};
  EXPECT_FALSE(RuleSet::load(paths, LoadOptions{dir_ / "cache"}));
}

TEST_F(RuleCacheTest, CorruptCacheFallsBackToTheRuleFiles) {
  ASSERT_TRUE(load());
  for (const auto& f : cachedRuleFiles()) {
    const auto size = fs::file_size(f);
    fs::resize_file(f, size / 2);
  }
  const auto set = load();
  ASSERT_TRUE(set);
  EXPECT_NE(set->find("demo"), nullptr);
  EXPECT_EQ(findings(set, "demo_a1b2c3d4"), 1u);
}

// Every field of every shipped rule survives the round trip: serializing what was read back
// gives the same bytes, and the examples still pass through a rule set built from it.
TEST(RuleCache, ShippedRulesRoundTrip) {
  const auto shipped = testing::shippedRules();
  ASSERT_TRUE(shipped);
  CachedRules c{shipped->rules(), {}};
  for (std::size_t i = 0; i < shipped->size(); ++i)
    c.windows.push_back(shipped->confirm(i).base_window);
  const std::string blob = serializeRules(c);
  const auto back = deserializeRules(blob);
  ASSERT_TRUE(back);
  EXPECT_EQ(serializeRules(*back), blob);
  EXPECT_FALSE(deserializeRules(std::string_view(blob).substr(0, blob.size() - 1)));
  EXPECT_FALSE(deserializeRules(blob + "x"));
  EXPECT_FALSE(deserializeRules(""));
}

// `exclude_match` vetoes on the rule's whole match (here the name before `key`), where
// `exclude` sees only the secret; a warm start must keep it, or every cache key would leak
// through as a finding after the first restart.
TEST_F(RuleCacheTest, ExcludeMatchVetoesOnTheWholeMatchColdAndWarm) {
  write(R"(defaults:
  category: secret
rules:
  - id: named-key
    description: A key-named assignment
    pattern: '(?:[a-z]{1,20}[ _]?)?key = ([a-z0-9]{12})'
    secret_group: 1
    exclude_match: ['cache[ _]?key']
    examples:
      match: ['orbit key = a1b2c3d4e5f6']
      no_match: ['cache key = a1b2c3d4e5f6']
)");
  for (const char* start : {"cold", "warm"}) {
    SCOPED_TRACE(start);
    const auto set = load();
    ASSERT_TRUE(set);
    EXPECT_EQ(findings(set, "orbit key = a1b2c3d4e5f6"), 1u);
    EXPECT_EQ(findings(set, "cache key = a1b2c3d4e5f6"), 0u);
    // The secret alone holds no excluded word: only the whole match can veto it.
    EXPECT_EQ(findings(set, "cache_key = a1b2c3d4e5f6 and orbit key = 0f9e8d7c6b5a"), 1u);
  }
  EXPECT_EQ(cachedRuleFiles().size(), 1u);
}

}  // namespace
}  // namespace mcpgate::dlp
