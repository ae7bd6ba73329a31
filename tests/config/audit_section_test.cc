// The `audit:` section: where the audit log goes and which key hashes it.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

class AuditSectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-audit-section-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::string path() const { return dir_ + "/gw.yaml"; }

  std::expected<std::shared_ptr<const Config>, Error> load(const std::string& audit) {
    std::ofstream(path()) << "state_dir: state\n"
                             "servers:\n"
                             "  fs: {command: node}\n" +
                                 audit;
    return loadConfig(path());
  }

  std::string dir_;
};

TEST_F(AuditSectionTest, AbsentMeansNoAuditFile) {
  auto config = load("");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_FALSE((*config)->audit.enabled);
  EXPECT_EQ(describeConfig(**config).find("audit:"), std::string::npos);
}

TEST_F(AuditSectionTest, EmptySectionDefaultsToTheStateDir) {
  auto config = load("audit:\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE((*config)->audit.enabled);
  EXPECT_EQ((*config)->audit.path, dir_ + "/state/audit.jsonl");
  EXPECT_EQ((*config)->audit.key_file, dir_ + "/state/audit.key");
  const std::string described = describeConfig(**config);
  EXPECT_NE(described.find("audit:"), std::string::npos) << described;
  EXPECT_NE(described.find(dir_ + "/state/audit.jsonl"), std::string::npos) << described;
}

TEST_F(AuditSectionTest, PathsResolveAgainstTheConfigFile) {
  auto config = load("audit: {path: logs/audit.jsonl, key_file: /etc/mcpgate/audit.key}\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ((*config)->audit.path, dir_ + "/logs/audit.jsonl");
  EXPECT_EQ((*config)->audit.key_file, "/etc/mcpgate/audit.key");
}

TEST_F(AuditSectionTest, DashMeansStdout) {
  auto config = load("audit:\n  path: '-'\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ((*config)->audit.path, "-");
}

TEST_F(AuditSectionTest, ErrorsNameTheFileAndLine) {
  auto error = [&](const std::string& audit) {
    auto config = load(audit);
    return config ? std::string("(loaded)") : config.error().message;
  };
  EXPECT_EQ(error("audit: yes\n"),
            path() + ":4: audit must be a map such as {path: /var/log/mcpgate/audit.jsonl}");
  EXPECT_EQ(error("audit:\n  paht: /tmp/a.jsonl\n"),
            path() + ":5: unknown key 'paht' in audit (did you mean 'path'?)");
  EXPECT_EQ(error("audit:\n  path: ''\n"),
            path() + ":5: audit.path must be a file path, or \"-\" for stdout");
  EXPECT_EQ(error("audit:\n  key_file: '-'\n"), path() + ":5: audit.key_file must be a file path");
  EXPECT_EQ(error("audit:\n  path: [a]\n"),
            path() + ":5: audit.path must be a file path, or \"-\" for stdout");
  EXPECT_EQ(error("audit:\n  path: logs/\n"),
            path() + ":5: audit.path 'logs/' names a directory, not a file");
}

}  // namespace
}  // namespace mcpgate::config
