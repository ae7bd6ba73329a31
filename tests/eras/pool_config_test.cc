// A server's `pool:` (the processes kept per modern client): read, refused
// with the line when wrong, and shown back by the config description.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "config/config.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

class PoolConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-pool-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::expected<std::shared_ptr<const Config>, Error> load(const std::string& text) {
    const std::string path = dir_ + "/gw.yaml";
    std::ofstream(path) << text;
    return loadConfig(path);
  }
  std::string dir_;
};

TEST_F(PoolConfigTest, DefaultsAndValues) {
  auto plain = load("servers:\n  a:\n    command: node\n");
  ASSERT_TRUE(plain) << plain.error().message;
  const PoolConfig& defaults = (*plain)->servers.at("a").pool;
  EXPECT_EQ(defaults.size, 4U);
  EXPECT_EQ(defaults.start, 1U);
  EXPECT_FALSE(defaults.idle_timeout);

  auto set = load("servers:\n  a:\n    command: node\n    pool: {size: 2, start: 2, idle_timeout: 90s}\n");
  ASSERT_TRUE(set) << set.error().message;
  const PoolConfig& pool = (*set)->servers.at("a").pool;
  EXPECT_EQ(pool.size, 2U);
  EXPECT_EQ(pool.start, 2U);
  EXPECT_EQ(pool.idle_timeout, std::chrono::seconds(90));
  const std::string described = describeConfig(**set);
  EXPECT_NE(described.find("pool: {size: 2, start: 2, idle_timeout: 90s}"), std::string::npos)
      << described;
  // The description reads back as the same config.
  auto again = load(described);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->servers.at("a").pool.size, 2U);
  EXPECT_EQ((*again)->servers.at("a").pool.idle_timeout, std::chrono::seconds(90));
}

TEST_F(PoolConfigTest, MistakesNameTheLine) {
  const std::string head = "servers:\n  a:\n    command: node\n";
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"    pool: {size: 0}\n", "servers.a.pool.size"},
           {"    pool: {size: 65}\n", "servers.a.pool.size"},
           {"    pool: {size: 2, start: 3}\n", "must not be more than servers.a.pool.size"},
           {"    pool: {idle_timeout: soon}\n", "servers.a.pool.idle_timeout 'soon'"},
           {"    pool: {idle_timeout: 0s}\n", "must be more than 0"},
           {"    pool: {sise: 2}\n", "unknown key 'sise'"},
       }) {
    auto loaded = load(head + text);
    ASSERT_FALSE(loaded) << text;
    EXPECT_NE(loaded.error().message.find(":4:"), std::string::npos) << loaded.error().message;
    EXPECT_NE(loaded.error().message.find(expected), std::string::npos) << loaded.error().message;
  }
}

}  // namespace
}  // namespace mcpgate::config
