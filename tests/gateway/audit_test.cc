// The audit sink and its key, on their own: what a reader of the audit file
// and an operator managing the key see.

#include "gateway/observe/audit.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace mcpgate::gateway::audit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class AuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-audit-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    setSink(nullptr);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  [[nodiscard]] std::string read(const std::string& path) const {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  config::AuditConfig audit(const std::string& path = "audit.jsonl") const {
    return {true, path == "-" ? path : dir_ + "/" + path, dir_ + "/state/audit.key"};
  }

  std::string dir_;
};

TEST_F(AuditTest, APolicyDecisionIsOneLineWithEveryField) {
  auto sink = Sink::open(audit(), false);
  ASSERT_TRUE(sink) << sink.error();
  setSink(*sink);
  MessageContext context{"fs", "sid-1", Direction::kToServer, {}, "alice", "delete_file"};
  decision(context, "tools/call", "deny", "tool 'delete_file' is denied by policy");
  setSink(nullptr);

  const std::string content = read(dir_ + "/audit.jsonl");
  ASSERT_EQ(std::count(content.begin(), content.end(), '\n'), 1) << content;
  json line = json::parse(content);
  EXPECT_EQ(line["event"], "decision");
  EXPECT_EQ(line["client"], "alice");
  EXPECT_EQ(line["session"], "sid-1");
  EXPECT_EQ(line["server"], "fs");
  EXPECT_EQ(line["method"], "tools/call");
  EXPECT_EQ(line["tool"], "delete_file");
  EXPECT_EQ(line["direction"], "request");
  EXPECT_EQ(line["decision"], "deny");
  EXPECT_EQ(line["reason"], "tool 'delete_file' is denied by policy");
  EXPECT_TRUE(line.contains("time"));
}

TEST_F(AuditTest, TheKeyIsCreatedPrivateAndReusedByTheNextStart) {
  auto first = Sink::open(audit(), false);
  ASSERT_TRUE(first) << first.error();
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/state/audit.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir_ + "/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto second = Sink::open(audit(), false);
  ASSERT_TRUE(second) << second.error();
  const std::string hash = (*first)->keyedHash("AKIA4YSNI2G3IITN5XVK");
  EXPECT_EQ(hash, (*second)->keyedHash("AKIA4YSNI2G3IITN5XVK"));
  EXPECT_NE(hash, (*second)->keyedHash("AKIA4YSNI2G3IITN5XVL"));
  EXPECT_EQ(hash.size(), std::string("hmac-sha256:").size() + 32) << hash;
}

TEST_F(AuditTest, TheHashDependsOnTheKey) {
  // HMAC-SHA256 with the key "k"*32 over "secret", per RFC 2104 (checked with
  // `openssl dgst -sha256 -hmac`): a plain hash would let anyone confirm a guess.
  const std::string key = dir_ + "/k";
  std::ofstream(key) << std::string(32, 'k');
  ASSERT_EQ(::chmod(key.c_str(), 0600), 0);
  Sink sink("-", 1, *loadOrCreateKey(key));
  EXPECT_EQ(sink.keyedHash("secret"), "hmac-sha256:ead256ccb47a97d5f4efd6f4da905f03");
}

TEST_F(AuditTest, KeysOthersCanReachOrThatAreTooShortAreRefused) {
  const std::string key = dir_ + "/audit.key";
  std::ofstream(key) << std::string(64, 'a') << "\n";
  ASSERT_EQ(::chmod(key.c_str(), 0640), 0);
  auto refused = loadOrCreateKey(key);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "refusing the audit key file " + key +
                                 ": group or others have access (mode 0640); chmod 600 " + key);
  ASSERT_EQ(::chmod(key.c_str(), 0600), 0);
  EXPECT_EQ(loadOrCreateKey(key).value_or(""), std::string(64, 'a'));

  std::ofstream(key, std::ios::trunc) << "short\n";
  auto short_key = loadOrCreateKey(key);
  ASSERT_FALSE(short_key);
  EXPECT_EQ(short_key.error(), "refusing the audit key file " + key +
                                   ": the key must be at least 32 bytes (it has 5)");

  fs::create_symlink(key, dir_ + "/link.key");
  EXPECT_FALSE(loadOrCreateKey(dir_ + "/link.key"));
}

TEST_F(AuditTest, StdoutIsRefusedWhenItCarriesMcp) {
  auto sink = Sink::open(audit("-"), /*stdout_is_mcp=*/true);
  ASSERT_FALSE(sink);
  EXPECT_NE(sink.error().find("cannot be used with mcpgate stdio"), std::string::npos);
  EXPECT_TRUE(Sink::open(audit("-"), false));
}

TEST_F(AuditTest, AFullDiskLosesLinesButNotTheGateway) {
  // /dev/full fails every write with ENOSPC, as a full disk does.
  Sink sink("/dev/full", ::open("/dev/full", O_WRONLY | O_APPEND), std::string(32, 'k'));
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 100; ++i) sink.write(R"({"event":"finding"})");
  const std::string log = ::testing::internal::GetCapturedStderr();
  // Said once, not a hundred times.
  std::size_t said = 0;
  for (auto at = log.find("cannot write the audit log"); at != std::string::npos;
       at = log.find("cannot write the audit log", at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 1u) << log;
  EXPECT_NE(log.find("No space left on device"), std::string::npos) << log;
}

}  // namespace
}  // namespace mcpgate::gateway::audit
