// PolicyTable (which policies entry governs a server, tool and client, and
// what it does to the rules) and PinStore (what a tools/list records and
// holds), on their own.

#include "gateway/guard/policy.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "config/config.h"
#include "dlp/rule.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "gateway/guard/pins.h"

namespace mcpgate::gateway {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::shared_ptr<const dlp::RuleSet> rules() {
  auto parsed = dlp::loadRuleText(
      "defaults: {severity: low, action: warn}\n"
      "rules:\n"
      "  - {id: key-a, category: secret, pattern: 'KEYA-[0-9]{4}', action: redact}\n"
      "  - {id: key-b, category: secret, pattern: 'KEYB-[0-9]{4}'}\n"
      "  - {id: mail, category: pii, pattern: 'MAIL-[0-9]{4}', directions: [response]}\n",
      "test.yaml");
  EXPECT_TRUE(parsed) << parsed.error().message;
  auto set = dlp::RuleSet::fromRules(std::move(*parsed));
  EXPECT_TRUE(set) << set.error().message;
  return *set;
}

config::PolicyConfig entry(int line, std::string server, std::string tool,
                           std::string client = "*") {
  config::PolicyConfig p;
  p.line = line;
  p.server = std::move(server);
  p.tool = std::move(tool);
  p.client = std::move(client);
  return p;
}

TEST(PolicyTable, MostSpecificEntryWinsThenFileOrder) {
  config::Config config;
  config.source = "gw.yaml";
  config.policies = {entry(1, "*", "*"),
                     entry(2, "git*", "*"),
                     entry(3, "github", "create_*"),
                     entry(4, "github", "create_issue"),
                     entry(5, "github", "create_?ssue"),
                     entry(6, "github", "*", "alice"),
                     entry(7, "*", "create_issue", "*")};
  auto table = PolicyTable::build(config, rules());
  ASSERT_TRUE(table) << table.error();
  auto where = [&](std::string_view server, std::string_view tool, std::string_view client = "") {
    return (*table)->resolve(server, tool, client).where;
  };
  EXPECT_EQ(where("github", "create_issue"), "gw.yaml:4");  // both exact beats globs
  EXPECT_EQ(where("github", "create_pr"), "gw.yaml:3");
  EXPECT_EQ(where("github", "create_xssue"), "gw.yaml:5");
  // One field each: the longer literal part wins ("create_issue" over "git*").
  EXPECT_EQ(where("gitlab", "create_issue"), "gw.yaml:7");
  EXPECT_EQ(where("github", "list"), "gw.yaml:2");
  EXPECT_EQ(where("other", "list"), "gw.yaml:1");
  EXPECT_EQ(where("github", ""), "gw.yaml:2");  // no tool: "*" matches it, create_* does not
  // Three non-* fields beat two, whatever the literals.
  EXPECT_EQ(where("github", "create_issue", "alice"), "gw.yaml:4");
  EXPECT_EQ(where("github", "list", "alice"), "gw.yaml:6");
  // Cached answers are the same answers.
  EXPECT_EQ(where("github", "create_pr"), "gw.yaml:3");
  EXPECT_EQ((*table)->matches("github", "create_issue", "").size(), 6u);

  config.policies = {entry(1, "a*", "*"), entry(2, "*a", "*")};  // a tie: the first wins
  auto tie = PolicyTable::build(config, rules());
  ASSERT_TRUE(tie);
  EXPECT_EQ((*tie)->resolve("aa", "t", "").where, "gw.yaml:1");

  config.policies.clear();
  auto none = PolicyTable::build(config, rules());
  ASSERT_TRUE(none);
  EXPECT_EQ((*none)->resolve("github", "x", "").source, nullptr);
}

TEST(PolicyTable, ActionsDisabledRulesAndDefaults) {
  config::Config config;
  config.source = "gw.yaml";
  config.dlp.request_action = dlp::Action::kBlock;
  auto p = entry(10, "*", "echo");
  // The id beats its category whatever the order.
  p.actions = {{"key-a", dlp::Action::kLog, dlp::Action::kLog, 11},
               {"category:secret", dlp::Action::kWarn, std::nullopt, 12}};
  p.disable_rules = {{"category:pii", 13}};
  p.deny = true;
  p.max_argument_bytes = 100;
  config.policies = {p};
  auto table = PolicyTable::build(config, rules());
  ASSERT_TRUE(table) << table.error();

  const EffectivePolicy& echo = (*table)->resolve("s", "echo", "");
  EXPECT_TRUE(echo.deny);
  EXPECT_EQ(echo.max_argument_bytes, 100u);
  EXPECT_EQ(echo.request.actions.at("key-a"), dlp::Action::kLog);
  EXPECT_EQ(echo.request.actions.at("key-b"), dlp::Action::kWarn);
  EXPECT_EQ(echo.response.actions.at("key-a"), dlp::Action::kLog);
  EXPECT_FALSE(echo.response.actions.contains("key-b"));  // the rule's own action stays
  EXPECT_TRUE(echo.response.disabled.contains("mail"));

  const EffectivePolicy& other = (*table)->resolve("s", "other", "");
  EXPECT_FALSE(other.deny);
  EXPECT_EQ(other.request.actions.at("key-a"), dlp::Action::kBlock);  // dlp.default_action
  EXPECT_TRUE(other.response.disabled.empty());
}

// Two strong signals (60 each) of a detector whose pack threshold is 100.
std::shared_ptr<const dlp::RuleSet> detectorRules() {
  auto parsed = dlp::loadRuleText(
      "defaults: {category: injection, directions: none}\n"
      "detector: {id: inj, description: d, threshold: 100, directions: response}\n"
      "rules:\n"
      "  - {id: sig-a, description: a, weight: 60, pattern: 'alpha'}\n"
      "  - {id: sig-b, description: b, weight: 60, pattern: 'bravo'}\n",
      "inj.yaml");
  EXPECT_TRUE(parsed) << parsed.error().message;
  auto set = dlp::RuleSet::fromRules(std::move(*parsed));
  EXPECT_TRUE(set) << set.error().message;
  return *set;
}

TEST(PolicyTable, ThresholdsRaiseOrLowerADetectorPerEntry) {
  config::Config config;
  config.source = "gw.yaml";
  auto docs = entry(30, "docs", "*");  // a docs server quoting payloads: needs more evidence
  docs.thresholds = {{"inj", 150, 31}};
  auto mail = entry(32, "mail", "*");  // an inbox: one strong signal is enough
  mail.thresholds = {{"inj", 60, 33}};
  config.policies = {docs, mail};
  const auto rules = detectorRules();
  auto table = PolicyTable::build(config, rules);
  ASSERT_TRUE(table) << table.error();

  const dlp::Scanner scanner(rules);
  auto reported = [&](std::string_view server, const std::string& text) {
    const auto& policy = (*table)->resolve(server, "read", "").response;
    return !scanner.scanText(text, dlp::Direction::kResponse, policy).empty();
  };
  EXPECT_TRUE(reported("other", "alpha bravo"));  // 120 >= the pack's 100
  EXPECT_FALSE(reported("other", "alpha"));
  EXPECT_FALSE(reported("docs", "alpha bravo"));  // 120 < 150
  EXPECT_TRUE(reported("mail", "alpha"));         // 60 >= 60
  EXPECT_EQ((*table)->resolve("docs", "read", "").request.thresholds.at("inj"), 150);
}

TEST(PolicyTable, AThresholdForAnUnknownDetectorIsAnErrorWithItsLine) {
  config::Config config;
  config.source = "gw.yaml";
  auto p = entry(40, "*", "*");
  p.thresholds = {{"sig-a", 50, 41}};  // a signal, not a detector
  config.policies = {p};
  auto table = PolicyTable::build(config, detectorRules());
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error(),
            "gw.yaml:41: policies entry at line 40: thresholds: no loaded detector has the id "
            "'sig-a'");
}

TEST(PolicyTable, UnknownRuleOrEmptyCategoryIsAnErrorWithItsLine) {
  config::Config config;
  config.source = "gw.yaml";
  auto p = entry(20, "*", "*");
  p.actions = {{"key-c", dlp::Action::kLog, dlp::Action::kLog, 21}};
  config.policies = {p};
  auto table = PolicyTable::build(config, rules());
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error(),
            "gw.yaml:21: policies entry at line 20: actions: no loaded rule has the id 'key-c' "
            "(did you mean 'key-a'?)");

  p.actions.clear();
  p.disable_rules = {{"category:injection", 22}};
  config.policies = {p};
  table = PolicyTable::build(config, rules());
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error(),
            "gw.yaml:22: policies entry at line 20: disable_rules: no loaded rule is in "
            "category:injection");

  // DLP off: nothing to check against, and nothing for them to act on.
  EXPECT_TRUE(PolicyTable::build(config, nullptr));
}

class PinStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-pins-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    auto opened = PinStore::open(dir_ + "/state");
    ASSERT_TRUE(opened) << opened.error();
    store_ = std::move(*opened);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  static json tool(const std::string& name, const std::string& description) {
    return {{"name", name},
            {"description", description},
            {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}};
  }

  std::string dir_;
  std::unique_ptr<PinStore> store_;
};

TEST_F(PinStoreTest, FirstSightTrustsThenChangesAreHeldUntilApproved) {
  EXPECT_EQ(store_->callable("s", "a"), true);  // never listed: nothing to check against
  json v1 = json::array({tool("a", "one"), tool("b", "two")});
  EXPECT_EQ(store_->check("s", v1), std::vector<std::string>{});
  EXPECT_EQ(store_->callable("s", "a"), true);
  EXPECT_EQ(store_->callable("s", "zzz"), true);  // never listed: no definition to hold

  json v2 = json::array({tool("a", "one, changed"), tool("b", "two"), tool("c", "three")});
  EXPECT_EQ(store_->check("s", v2), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(store_->callable("s", "a"), false);
  EXPECT_EQ(store_->callable("s", "b"), true);
  auto pins = store_->read("s");
  ASSERT_TRUE(pins && *pins);
  EXPECT_EQ((**pins).at("a").status(), "changed");
  EXPECT_EQ((**pins).at("b").status(), "pinned");
  EXPECT_EQ((**pins).at("c").status(), "new");

  EXPECT_EQ(store_->approve("s", {"a"}), std::vector<std::string>{"a"});
  EXPECT_EQ(store_->check("s", v2), std::vector<std::string>{"c"});
  // Back to the first definition of a: that is a change again, held.
  EXPECT_EQ(store_->check("s", v1), std::vector<std::string>{"a"});
  EXPECT_FALSE(store_->approve("s", {"nope"}));
  EXPECT_EQ(store_->approve("s", {}), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(store_->check("s", v1), std::vector<std::string>{});
  EXPECT_EQ(store_->servers(), std::vector<std::string>{"s"});

  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/state/pins/s.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(PinStoreTest, AChangeRevertedBeforeApprovalIsTrustedAgain) {
  json v1 = json::array({tool("a", "one")});
  ASSERT_EQ(store_->check("s", v1), std::vector<std::string>{});
  EXPECT_EQ(store_->check("s", json::array({tool("a", "evil")})), std::vector<std::string>{"a"});
  EXPECT_EQ(store_->check("s", v1), std::vector<std::string>{});
  EXPECT_EQ(store_->callable("s", "a"), true);
}

TEST_F(PinStoreTest, ASecondStoreSeesTheFirstOnesWrites) {
  // Two stores on one directory: a gateway and `mcpgate pins approve`.
  auto other = PinStore::open(dir_ + "/state");
  ASSERT_TRUE(other);
  ASSERT_EQ(store_->check("s", json::array({tool("a", "one")})), std::vector<std::string>{});
  ASSERT_EQ(store_->check("s", json::array({tool("a", "two")})), std::vector<std::string>{"a"});
  EXPECT_EQ(store_->callable("s", "a"), false);
  EXPECT_EQ((*other)->approve("s", {"a"}), std::vector<std::string>{"a"});
  EXPECT_EQ(store_->callable("s", "a"), true);
}

TEST_F(PinStoreTest, SeesTheFileAfterItsDirectoryIsReplaced) {
  // The store watches the directory for changes; an operator who moves it
  // away and starts afresh must not leave the store answering from memory.
  ASSERT_EQ(store_->check("s", json::array({tool("a", "one")})), std::vector<std::string>{});
  ASSERT_EQ(store_->check("s", json::array({tool("a", "two")})), std::vector<std::string>{"a"});
  ASSERT_EQ(store_->callable("s", "a"), false);
  fs::rename(dir_ + "/state/pins", dir_ + "/state/pins.old");
  auto fresh = PinStore::open(dir_ + "/state");  // makes a new, empty pins directory
  ASSERT_TRUE(fresh);
  ASSERT_EQ((*fresh)->check("s", json::array({tool("a", "two")})), std::vector<std::string>{});
  EXPECT_EQ(store_->callable("s", "a"), true);
  // And it keeps following the file from then on.
  ASSERT_EQ((*fresh)->check("s", json::array({tool("a", "three")})), std::vector<std::string>{"a"});
  EXPECT_EQ(store_->callable("s", "a"), false);
}

TEST_F(PinStoreTest, AnUnreadableFileIsAnErrorNotATrust) {
  ASSERT_EQ(store_->check("s", json::array({tool("a", "one")})), std::vector<std::string>{});
  std::ofstream(dir_ + "/state/pins/s.json") << "not json";
  EXPECT_FALSE(store_->check("s", json::array({tool("a", "one")})));
  EXPECT_FALSE(store_->callable("s", "a"));
}

TEST_F(PinStoreTest, HashCoversNameDescriptionAndSchemaOnly) {
  json a = tool("a", "one");
  json same = a;
  same["annotations"] = {{"title", "ignored"}};
  EXPECT_EQ(toolHash(a), toolHash(same));
  EXPECT_EQ(toolHash(a).size(), 64u);
  json schema = a;
  schema["inputSchema"]["properties"]["x"] = {{"type", "string"}};
  EXPECT_NE(toolHash(a), toolHash(schema));
  EXPECT_NE(toolHash(a), toolHash(tool("b", "one")));
}

TEST(PinStoreOpen, RefusesAStateDirOthersCanWrite) {
  std::string dir = (fs::temp_directory_path() / "mcpgate-pins-open-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  ASSERT_EQ(::mkdir((dir + "/pins").c_str(), 0777), 0);
  ASSERT_EQ(::chmod((dir + "/pins").c_str(), 0777), 0);
  auto opened = PinStore::open(dir);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().find("writable by others"), std::string::npos) << opened.error();
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace
}  // namespace mcpgate::gateway
