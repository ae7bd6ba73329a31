#include "config/origin.h"

#include <gtest/gtest.h>

namespace mcpgate::config {
namespace {

TEST(OriginAllowed, DefaultAllowsLocalhostOnAnyPortOverHttpAndHttps) {
  const Config config;  // allowed_origins empty: the default
  for (const char* origin :
       {"http://localhost", "http://localhost:3000", "https://localhost:8443", "http://127.0.0.1",
        "http://127.0.0.1:5173", "https://[::1]:8080", "http://[::1]", "HTTP://LocalHost:3000"}) {
    EXPECT_TRUE(originAllowed(config, origin)) << origin;
  }
}

TEST(OriginAllowed, DefaultRejectsEverythingElse) {
  const Config config;
  for (const char* origin :
       {"http://example.com", "http://localhost.example.com", "http://localhost.",
        "http://127.0.0.2:3000", "ftp://localhost", "file://", "null", "", "localhost:3000",
        "http://user@localhost", "http://localhost:3000/", "http://localhost:99999",
        "http://localhost:", "http://[::2]:80", "http://evil.com#localhost",
        "http://localhost@evil.com"}) {
    EXPECT_FALSE(originAllowed(config, origin)) << origin;
  }
}

TEST(OriginAllowed, ListedOriginsMatchExactlyIgnoringCase) {
  Config config;
  config.allowed_origins = {"https://app.example.com", "http://localhost:3000"};
  EXPECT_TRUE(originAllowed(config, "https://app.example.com"));
  EXPECT_TRUE(originAllowed(config, "HTTPS://App.Example.COM"));
  EXPECT_TRUE(originAllowed(config, "http://localhost:3000"));
  EXPECT_FALSE(originAllowed(config, "http://localhost:3001"));  // no longer the default
  EXPECT_FALSE(originAllowed(config, "http://localhost"));
  EXPECT_FALSE(originAllowed(config, "http://app.example.com"));
  EXPECT_FALSE(originAllowed(config, "https://app.example.com:443"));
  EXPECT_FALSE(originAllowed(config, "https://app.example.com.evil.com"));
}

TEST(OriginAllowed, StarAllowsAll) {
  Config config;
  config.allowed_origins = {"http://localhost:3000", "*"};
  EXPECT_TRUE(originAllowed(config, "https://anything.example"));
  EXPECT_TRUE(originAllowed(config, "null"));
}

TEST(IsValidOriginEntry, AcceptsOnlySerializedOrigins) {
  for (const char* entry :
       {"*", "http://localhost:3000", "https://app.example.com", "http://[::1]:8080"}) {
    EXPECT_TRUE(isValidOriginEntry(entry)) << entry;
  }
  for (const char* entry : {"", "localhost:3000", "ftp://x", "http://x/path", "http://",
                            "http://x:", "https://*.example.com", "**"}) {
    EXPECT_FALSE(isValidOriginEntry(entry)) << entry;
  }
}

}  // namespace
}  // namespace mcpgate::config
