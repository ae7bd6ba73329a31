// The encrypted secret store: values round-trip, any change to the file is
// detected, a wrong key is refused with a message naming its source.

#include "secrets/store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "secrets/key_file.h"

namespace mcpgate::secrets {
namespace {

namespace fs = std::filesystem;

class SecretStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv(kKeyVariable);
    ::unsetenv("CREDENTIALS_DIRECTORY");
    std::string dir = (fs::temp_directory_path() / "mcpgate-secrets-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    where_ = locationsFor(dir_ + "/state");
  }
  void TearDown() override {
    ::unsetenv(kKeyVariable);
    ::unsetenv("CREDENTIALS_DIRECTORY");
    fs::remove_all(dir_);
  }
  std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

  std::string dir_;
  Locations where_;
};

TEST_F(SecretStoreTest, ValuesRoundTripThroughTheFileAndTheFileHoldsNoPlaintext) {
  auto key = findKey(where_, /*create=*/true);
  ASSERT_TRUE(key) << key.error();
  struct stat st {};
  ASSERT_EQ(::stat(where_.key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto store = Store::open(where_.store, *key);
  ASSERT_TRUE(store) << store.error();
  EXPECT_FALSE(store->exists());
  ASSERT_TRUE(store->set("GITHUB_TOKEN", "ghp_roundtrip_value_0123456789"));
  ASSERT_TRUE(store->set("EMPTY", ""));
  ASSERT_TRUE(store->save());
  ASSERT_EQ(::stat(where_.store.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read(where_.store).find("ghp_roundtrip"), std::string::npos);

  auto again = Store::open(where_.store, *findKey(where_, false));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->names(), (std::vector<std::string>{"EMPTY", "GITHUB_TOKEN"}));
  EXPECT_EQ(again->get("GITHUB_TOKEN").value_or("?"), "ghp_roundtrip_value_0123456789");
  EXPECT_EQ(again->get("EMPTY").value_or("?"), "");
  EXPECT_FALSE(again->get("MISSING"));
  EXPECT_TRUE(again->remove("EMPTY"));
  EXPECT_FALSE(again->contains("EMPTY"));
}

TEST_F(SecretStoreTest, AFlippedBitOrAnEntryMovedToAnotherNameFailsAuthentication) {
  auto key = findKey(where_, true);
  ASSERT_TRUE(key);
  auto store = Store::open(where_.store, *key);
  ASSERT_TRUE(store->set("A", "value-of-a"));
  ASSERT_TRUE(store->set("B", "value-of-b"));
  ASSERT_TRUE(store->save());
  auto doc = nlohmann::json::parse(read(where_.store));

  auto flipped = doc;
  std::string a = flipped["secrets"]["A"];
  a[30] = a[30] == '0' ? '1' : '0';  // inside the ciphertext
  flipped["secrets"]["A"] = a;
  write(where_.store, flipped.dump());
  auto opened = Store::open(where_.store, *key);
  ASSERT_TRUE(opened) << opened.error();
  auto value = opened->get("A");
  ASSERT_FALSE(value);
  EXPECT_NE(value.error().find("fails authentication"), std::string::npos) << value.error();
  EXPECT_EQ(opened->get("B").value_or("?"), "value-of-b");

  auto moved = doc;
  moved["secrets"]["B"] = doc["secrets"]["A"];  // A's sealed value under B's name
  write(where_.store, moved.dump());
  opened = Store::open(where_.store, *key);
  ASSERT_TRUE(opened);
  EXPECT_FALSE(opened->get("B"));
}

TEST_F(SecretStoreTest, AWrongKeyIsAClearErrorNamingItsSource) {
  auto key = findKey(where_, true);
  auto store = Store::open(where_.store, *key);
  ASSERT_TRUE(store->set("TOKEN", "secret-value"));
  ASSERT_TRUE(store->save());

  ::setenv(kKeyVariable, "another-key-of-at-least-thirty-two-bytes!", 1);
  auto other = findKey(where_, false);
  ASSERT_TRUE(other) << other.error();
  EXPECT_EQ(other->source, kKeyVariable);
  auto opened = Store::open(where_.store, *other);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().find("MCPGATE_SECRET_KEY does not open the secret store"),
            std::string::npos)
      << opened.error();
  EXPECT_EQ(opened.error().find("secret-value"), std::string::npos);

  ::setenv(kKeyVariable, "short", 1);
  EXPECT_FALSE(findKey(where_, false));
}

TEST_F(SecretStoreTest, ASystemdCredentialIsUsedWhenPresent) {
  const std::string creds = dir_ + "/creds";
  fs::create_directories(creds);
  write(creds + "/" + kCredentialName, "credential-key-0123456789abcdef0123456789\n");
  ::setenv("CREDENTIALS_DIRECTORY", creds.c_str(), 1);
  auto key = findKey(where_, false);
  ASSERT_TRUE(key) << key.error();
  EXPECT_EQ(key->bytes, "credential-key-0123456789abcdef0123456789");
  EXPECT_FALSE(fs::exists(where_.key_file));
}

TEST_F(SecretStoreTest, AKeyFileOthersCanReadIsRefused) {
  ASSERT_TRUE(findKey(where_, true));
  ::chmod(where_.key_file.c_str(), 0644);
  auto key = findKey(where_, false);
  ASSERT_FALSE(key);
  EXPECT_NE(key.error().find("group or others have access"), std::string::npos) << key.error();
}

TEST_F(SecretStoreTest, RekeyedStoreOpensOnlyWithTheNewKey) {
  auto key = findKey(where_, true);
  auto store = Store::open(where_.store, *key);
  ASSERT_TRUE(store->set("TOKEN", "rotate-me"));
  ASSERT_TRUE(store->save());
  Key fresh{*newKeyText(), "new key", ""};
  auto rekeyed = store->rekeyed(fresh);
  ASSERT_TRUE(rekeyed) << rekeyed.error();
  ASSERT_TRUE(rekeyed->save());
  EXPECT_FALSE(Store::open(where_.store, *key));
  auto opened = Store::open(where_.store, fresh);
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_EQ(opened->get("TOKEN").value_or("?"), "rotate-me");
}

TEST_F(SecretStoreTest, NamesAndValuesAreChecked) {
  auto store = Store::open(where_.store, *findKey(where_, true));
  EXPECT_FALSE(store->set("1ABC", "x"));
  EXPECT_FALSE(store->set("A-B", "x"));
  EXPECT_FALSE(store->set("A", std::string("a\0b", 3)));
  EXPECT_FALSE(store->set("A", std::string(kMaxSecretBytes + 1, 'x')));
}

}  // namespace
}  // namespace mcpgate::secrets
