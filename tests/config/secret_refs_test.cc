// ${secret:NAME} in a config: resolved from the encrypted store into the
// server's environment only, never shown by describeConfig (config check).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"
#include "secrets/store.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

constexpr const char* kValue = "sk-live-secret-value-4242";

class SecretRefsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv(secrets::kKeyVariable);
    ::unsetenv("CREDENTIALS_DIRECTORY");
    std::string dir = (fs::temp_directory_path() / "mcpgate-secret-refs-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    ::unsetenv(secrets::kKeyVariable);
    fs::remove_all(dir_);
  }
  void storeSecret(const std::string& name, const std::string& value) {
    const auto where = secrets::locationsFor(dir_ + "/state");
    auto key = secrets::findKey(where, true);
    ASSERT_TRUE(key) << key.error();
    auto store = secrets::Store::open(where.store, *key);
    ASSERT_TRUE(store) << store.error();
    ASSERT_TRUE(store->set(name, value));
    ASSERT_TRUE(store->save());
  }
  std::string config(const std::string& env_value) {
    const std::string path = dir_ + "/gw.yaml";
    std::ofstream(path) << "state_dir: " << dir_ << "/state\n"
                        << "servers:\n  api:\n    command: node\n    env:\n      TOKEN: \""
                        << env_value << "\"\n";
    return path;
  }
  std::string dir_;
};

TEST_F(SecretRefsTest, AReferenceBecomesTheServersEnvironmentAndIsNotDescribed) {
  storeSecret("API_TOKEN", kValue);
  auto loaded = loadConfig(config("Bearer ${secret:API_TOKEN}"));
  ASSERT_TRUE(loaded) << loaded.error().message;
  const auto& env = (*loaded)->servers.at("api").env;
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].second, std::string("Bearer ") + kValue);
  EXPECT_EQ(describeConfig(**loaded).find(kValue), std::string::npos);
}

TEST_F(SecretRefsTest, UnknownSecretsAndAWrongKeyAreErrorsWithoutValues) {
  storeSecret("API_TOKEN", kValue);
  auto missing = loadConfig(config("${secret:OTHER}"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("servers.api.env.TOKEN: secret 'OTHER' is not in"),
            std::string::npos)
      << missing.error().message;

  ::setenv(secrets::kKeyVariable, "a-different-key-0123456789abcdef0123456789", 1);
  auto wrong = loadConfig(config("${secret:API_TOKEN}"));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("does not open the secret store"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(wrong.error().message.find(kValue), std::string::npos);
  // `mcpgate secret` reads the same config without touching the store.
  EXPECT_TRUE(loadConfig(config("${secret:API_TOKEN}"), LoadOptions{.resolve_secrets = false}));
}

TEST_F(SecretRefsTest, ALiteralDollarIsNotAReference) {
  storeSecret("API_TOKEN", kValue);
  auto loaded = loadConfig(config("$${secret:API_TOKEN}"));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ((*loaded)->servers.at("api").env[0].second, "${secret:API_TOKEN}");
}

TEST_F(SecretRefsTest, SecretsAreRefusedOutsideAnEnvironment) {
  const std::string path = dir_ + "/gw.yaml";
  std::ofstream(path) << "servers:\n  remote:\n    url: https://api.example.test/mcp\n"
                      << "    headers:\n      Authorization: \"${secret:API_TOKEN}\"\n";
  auto loaded = loadConfig(path);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("may only be used in a server's env"), std::string::npos)
      << loaded.error().message;
}

}  // namespace
}  // namespace mcpgate::config
