#include "config/policy_section.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"
#include "dlp/rule.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

// Lines 1-3; policies start on line 4.
constexpr const char* kServers =
    "servers:\n"
    "  github: {command: node}\n"
    "  gitlab: {command: node}\n";

class PolicySectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-policy-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path() const { return dir_ + "/gw.yaml"; }

  std::shared_ptr<const Config> load(const std::string& rest) {
    std::ofstream(path()) << kServers << rest;
    auto loaded = loadConfig(path());
    EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
    return loaded.value_or(nullptr);
  }

  std::string errorOf(const std::string& rest) {
    std::ofstream(path()) << kServers << rest;
    auto loaded = loadConfig(path());
    return loaded ? "(loaded without error)" : loaded.error().message;
  }

  std::string at(int line, const std::string& message) const {
    return path() + ":" + std::to_string(line) + ": " + message;
  }

  std::string dir_;
};

TEST_F(PolicySectionTest, ReadsTheIssueExample) {
  auto config = load(
      "policies:\n"
      "  - match: {server: \"github\", tool: \"create_*\", client: \"*\"}\n"
      "    deny: false\n"
      "    actions: {pii.email: log, category:injection: block, x: {request: warn}}\n"
      "    disable_rules: [generic-high-entropy]\n"
      "    max_argument_bytes: 64KiB\n"
      "    thresholds: {injection-detector: 150}\n"
      "  - match: {tool: delete_repo}\n"
      "    deny: true\n");
  ASSERT_TRUE(config);
  ASSERT_EQ(config->policies.size(), 2u);
  const PolicyConfig& p = config->policies[0];
  EXPECT_EQ(p.line, 5);
  EXPECT_EQ(p.server, "github");
  EXPECT_EQ(p.tool, "create_*");
  EXPECT_EQ(p.client, "*");
  EXPECT_FALSE(p.deny);
  ASSERT_EQ(p.actions.size(), 3u);
  EXPECT_EQ(p.actions[0].target, "pii.email");
  EXPECT_EQ(p.actions[0].request, dlp::Action::kLog);
  EXPECT_EQ(p.actions[0].response, dlp::Action::kLog);
  EXPECT_EQ(p.actions[1].target, "category:injection");
  EXPECT_EQ(p.actions[1].request, dlp::Action::kBlock);
  EXPECT_EQ(p.actions[2].request, dlp::Action::kWarn);
  EXPECT_FALSE(p.actions[2].response.has_value());
  EXPECT_EQ(p.actions[0].line, 7);
  ASSERT_EQ(p.disable_rules.size(), 1u);
  EXPECT_EQ(p.disable_rules[0].target, "generic-high-entropy");
  EXPECT_EQ(p.disable_rules[0].line, 8);
  EXPECT_EQ(p.max_argument_bytes, 65536u);
  ASSERT_EQ(p.thresholds.size(), 1u);
  EXPECT_EQ(p.thresholds[0].detector, "injection-detector");
  EXPECT_EQ(p.thresholds[0].value, 150);
  EXPECT_EQ(p.thresholds[0].line, 10);
  EXPECT_EQ(config->policies[1].server, "*");
  EXPECT_TRUE(config->policies[1].deny);
  EXPECT_EQ(config->policies[1].line, 11);
  // Pinning is on and hides changes unless the file says otherwise.
  EXPECT_TRUE(config->pins.enabled);
  EXPECT_EQ(config->pins.on_change, PinsConfig::OnChange::kHide);
}

TEST_F(PolicySectionTest, ErrorsNameTheLineAndWhatIsWrong) {
  EXPECT_EQ(errorOf("policies:\n  - match: {server: github}\n    deny_all: true\n"),
            at(6, "unknown key 'deny_all' in policies[0]"));
  EXPECT_EQ(errorOf("policies:\n  - match: {server: \"git[hl]ab\"}\n"),
            at(5,
               "policies[0].match.server 'git[hl]ab' holds '[': only * and ? are glob "
               "characters here"));
  EXPECT_EQ(errorOf("policies:\n  - match: {tool: \"\"}\n"),
            at(5, "policies[0].match.tool '' must not be empty (use \"*\" for any)"));
  EXPECT_EQ(errorOf("policies:\n  - match: {server: github}\n    actions: {pii-email: drop}\n"),
            at(6, "policies[0].actions.pii-email 'drop' must be one of log, warn, redact, block"));
  EXPECT_EQ(
      errorOf("policies:\n  - match: {server: github}\n    disable_rules: [category:secrets]\n"),
      at(6,
         "policies[0].disable_rules: 'category:secrets': unknown category 'secrets' (one "
         "of secret, pii, injection, command, custom)"));
  EXPECT_EQ(errorOf("policies:\n  - deny: true\n"),
            at(5,
               "policies[0]: missing required key 'match' (e.g. match: {server: github, tool: "
               "\"create_*\"})"));
  EXPECT_EQ(errorOf("policies:\n  - match: {server: bitbucket}\n"),
            at(5, "policies[0].match.server 'bitbucket' matches no configured server"));
  EXPECT_EQ(errorOf("policies:\n  - match: {}\n    max_argument_bytes: 0\n"),
            at(6, "policies[0].max_argument_bytes must be greater than 0"));
  EXPECT_EQ(errorOf("policies:\n  - match: {}\n    thresholds: {injection-detector: high}\n"),
            at(6, "policies[0].thresholds.injection-detector 'high' must be a whole number from "
                  "1 to 1000"));
  EXPECT_EQ(errorOf("policies:\n  - match: {}\n    thresholds: [150]\n"),
            at(6, "policies[0].thresholds must be a map of detector id to score (e.g. "
                  "{injection-detector: 150})"));
  EXPECT_EQ(errorOf("policies: {match: {}}\n"),
            at(4, "policies must be a list of {match: {...}, ...} entries"));
  EXPECT_EQ(errorOf("pins: {on_change: ignore}\n"),
            at(4, "pins.on_change 'ignore' must be hide or warn"));
  EXPECT_EQ(errorOf("pins: {mode: warn}\n"), at(4, "unknown key 'mode' in pins"));
}

TEST_F(PolicySectionTest, PinsSection) {
  auto config = load("pins: {enabled: false, on_change: warn}\n");
  ASSERT_TRUE(config);
  EXPECT_FALSE(config->pins.enabled);
  EXPECT_EQ(config->pins.on_change, PinsConfig::OnChange::kWarn);
}

TEST_F(PolicySectionTest, DescribedConfigLoadsBackTheSame) {
  auto config = load(
      "policies:\n"
      "  - match: {server: \"git*\", tool: \"create_?\"}\n"
      "    actions: {a: {request: block, response: log}, category:pii: warn}\n"
      "    disable_rules: [b]\n"
      "    max_argument_bytes: 4096\n"
      "pins: {on_change: warn}\n");
  ASSERT_TRUE(config);
  std::ofstream(dir_ + "/again.yaml") << describeConfig(*config);
  auto again = loadConfig(dir_ + "/again.yaml");
  ASSERT_TRUE(again) << again.error().message << "\n" << describeConfig(*config);
  ASSERT_EQ((*again)->policies.size(), 1u);
  const PolicyConfig& p = (*again)->policies[0];
  EXPECT_EQ(p.server, "git*");
  EXPECT_EQ(p.tool, "create_?");
  ASSERT_EQ(p.actions.size(), 2u);
  EXPECT_EQ(p.actions[0].request, dlp::Action::kBlock);
  EXPECT_EQ(p.actions[0].response, dlp::Action::kLog);
  EXPECT_EQ(p.actions[1].request, dlp::Action::kWarn);
  EXPECT_EQ(p.disable_rules[0].target, "b");
  EXPECT_EQ(p.max_argument_bytes, 4096u);
  EXPECT_EQ((*again)->pins.on_change, PinsConfig::OnChange::kWarn);
}

TEST(GlobMatch, StarAndQuestionMark) {
  EXPECT_TRUE(globMatch("*", ""));
  EXPECT_TRUE(globMatch("*", "anything"));
  EXPECT_TRUE(globMatch("create_*", "create_issue"));
  EXPECT_TRUE(globMatch("create_*", "create_"));
  EXPECT_FALSE(globMatch("create_*", "delete_issue"));
  EXPECT_FALSE(globMatch("create_*", ""));
  EXPECT_TRUE(globMatch("*_issue", "create_issue"));
  EXPECT_TRUE(globMatch("c*e*e", "create_issue_note"));
  EXPECT_FALSE(globMatch("c*e*x", "create_issue_note"));
  EXPECT_TRUE(globMatch("e?v", "env"));
  EXPECT_FALSE(globMatch("e?v", "ev"));
  EXPECT_TRUE(globMatch("github", "github"));
  EXPECT_FALSE(globMatch("github", "github2"));
  EXPECT_FALSE(globMatch("github", "Github"));
}

}  // namespace
}  // namespace mcpgate::config
