// A server's remote keys (url, headers, tls, ...): what loads, and the
// FILE:LINE error for what does not.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

class RemoteSectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-remote-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // `server` holds the lines of one server named r, indented by 4.
  std::expected<std::shared_ptr<const Config>, Error> loadServer(const std::string& server) {
    return loadConfig(write("gw.yaml", "servers:\n  r:\n" + server));
  }
  std::string errorOf(const std::string& server) {
    auto loaded = loadServer(server);
    return loaded ? "(loaded without error)" : loaded.error().message;
  }
  std::string at(int line, const std::string& message) {
    return dir_ + "/gw.yaml:" + std::to_string(line) + ": " + message;
  }

  std::string dir_;
};

TEST_F(RemoteSectionTest, LoadsAnHttpsServerWithHeadersAndTls) {
  write("ca.pem", "x");
  write("client.pem", "x");
  write("client.key", "x");
  ::setenv("REMOTE_SECTION_TOKEN", "tok-123", 1);
  auto loaded = loadServer(
      "    url: https://mcp.example.com:8443/v1/mcp?team=a\n"
      "    headers: {Authorization: \"Bearer ${REMOTE_SECTION_TOKEN}\", X-Team: a}\n"
      "    tls: {ca_file: ca.pem, cert_file: client.pem, key_file: client.key}\n"
      "    connect_timeout: 3s\n");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const ServerConfig& server = (*loaded)->servers.at("r");
  ASSERT_TRUE(server.remote);
  const RemoteConfig& remote = *server.remote;
  EXPECT_TRUE(remote.tls);
  EXPECT_EQ(remote.host, "mcp.example.com");
  EXPECT_EQ(remote.port, 8443);
  EXPECT_EQ(remote.target, "/v1/mcp?team=a");
  EXPECT_EQ(remote.headers, (std::vector<std::pair<std::string, std::string>>{
                                {"Authorization", "Bearer tok-123"}, {"X-Team", "a"}}));
  EXPECT_EQ(remote.ca_file, dir_ + "/ca.pem");
  EXPECT_EQ(remote.cert_file, dir_ + "/client.pem");
  EXPECT_EQ(remote.key_file, dir_ + "/client.key");
  EXPECT_EQ(remote.connect_timeout, std::chrono::seconds(3));

  // config check shows no header value and no query string.
  const std::string described = describeConfig(**loaded);
  EXPECT_EQ(described.find("tok-123"), std::string::npos) << described;
  EXPECT_EQ(described.find("team=a"), std::string::npos) << described;
  EXPECT_NE(described.find("Authorization: <set>"), std::string::npos) << described;
  EXPECT_NE(described.find("url: https://mcp.example.com:8443/v1/mcp?<set>"), std::string::npos)
      << described;
}

TEST_F(RemoteSectionTest, DefaultsAndAddresses) {
  auto plain = loadServer("    url: http://localhost\n");
  ASSERT_TRUE(plain) << plain.error().message;
  const RemoteConfig& remote = *(*plain)->servers.at("r").remote;
  EXPECT_FALSE(remote.tls);
  EXPECT_EQ(remote.port, 80);
  EXPECT_EQ(remote.target, "/");
  EXPECT_TRUE(remote.ca_file.empty());  // the system's bundle
  EXPECT_EQ(remote.connect_timeout, std::chrono::seconds(10));

  auto v6 = loadServer("    url: http://[::1]:9000/mcp\n");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ((*v6)->servers.at("r").remote->host, "::1");
  EXPECT_EQ((*v6)->servers.at("r").remote->port, 9000);

  auto insecure = loadServer("    url: http://10.0.0.5:9000/mcp\n    allow_insecure_http: true\n");
  ASSERT_TRUE(insecure) << insecure.error().message;
}

TEST_F(RemoteSectionTest, PlainHttpOnlyToLoopback) {
  EXPECT_EQ(errorOf("    url: http://mcp.example.com/mcp\n"),
            at(3,
               "servers.r.url 'http://mcp.example.com/mcp' is plain http to another host: its "
               "headers and every message would cross the network unencrypted. Use https, or set "
               "allow_insecure_http: true if the network is trusted"));
}

TEST_F(RemoteSectionTest, BadUrls) {
  EXPECT_EQ(errorOf("    url: ftp://x/mcp\n"),
            at(3,
               "servers.r.url 'ftp://x/mcp' must start with https:// (or http:// for a server "
               "on this host)"));
  EXPECT_EQ(errorOf("    url: https://user:pw@x/mcp\n"),
            at(3,
               "servers.r.url 'https://user:pw@x/mcp' has user:password@ in it: put "
               "credentials in 'headers'"));
  EXPECT_EQ(errorOf("    url: https://x:99999/mcp\n"),
            at(3, "servers.r.url 'https://x:99999/mcp' has a port outside 1 to 65535"));
  EXPECT_EQ(errorOf("    url: https:///mcp\n"), at(3, "servers.r.url 'https:///mcp' has no host"));
}

TEST_F(RemoteSectionTest, CommandAndUrlExcludeEachOther) {
  EXPECT_EQ(errorOf("    command: node\n    url: https://x/mcp\n"),
            at(3,
               "servers.r has both 'command' and 'url': a server is either a command the gateway "
               "starts or a remote url, not both"));
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    args: [a]\n"),
            at(4,
               "servers.r.args applies only to a server the gateway starts with 'command', not to "
               "a remote 'url' server"));
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    sandbox: {network: host}\n"),
            at(4,
               "servers.r.sandbox applies only to a server the gateway starts with 'command', not "
               "to a remote 'url' server"));
  EXPECT_EQ(errorOf("    command: node\n    headers: {A: b}\n"),
            at(4, "servers.r.headers is only for a remote server, which has a 'url'"));
}

TEST_F(RemoteSectionTest, BadHeaders) {
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    headers: {\"Bad Name\": x}\n"),
            at(4, "servers.r.headers key 'Bad Name' is not a valid HTTP header name"));
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    headers: {Mcp-Session-Id: x}\n"),
            at(4,
               "servers.r.headers key 'Mcp-Session-Id' is set by the gateway itself and cannot "
               "be configured"));
  ::setenv("REMOTE_SECTION_SPLIT", "a\r\nX-Injected: 1", 1);
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    headers: {A: \"${REMOTE_SECTION_SPLIT}\"}\n"),
            at(4,
               "servers.r.headers.A contains a line break or control character, which HTTP "
               "headers cannot carry"));
  ::unsetenv("REMOTE_SECTION_UNSET");
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    headers: {A: \"${REMOTE_SECTION_UNSET}\"}\n"),
            at(4,
               "servers.r.headers.A: ${REMOTE_SECTION_UNSET} is not set in the gateway's "
               "environment"));
}

TEST_F(RemoteSectionTest, TlsFiles) {
  write("client.pem", "x");
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    tls: {ca_file: nope.pem}\n"),
            at(4, "servers.r.tls.ca_file 'nope.pem' (" + dir_ + "/nope.pem) does not exist"));
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    tls:\n      cert_file: client.pem\n"),
            at(5,
               "servers.r.tls.cert_file needs key_file too (the client certificate's private "
               "key)"));
  EXPECT_EQ(errorOf("    url: http://localhost/mcp\n    tls: {cert_file: client.pem, key_file: "
                    "client.pem}\n"),
            at(3, "servers.r.tls is set but the url is plain http"));
  EXPECT_EQ(errorOf("    url: https://x/mcp\n    tls: {ca: x}\n"),
            at(4, "unknown key 'ca' in servers.r.tls"));
}

}  // namespace
}  // namespace mcpgate::config
