// The auth:, tls: and insecure_no_auth: keys: what loads, and the FILE:LINE
// error for each bad value.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

const std::string kHash = std::string(64, 'a');
// An RSA modulus of 2048 bits and e=65537, in base64url (the values do not
// need to form a key anyone holds: the loader checks the shape).
const std::string kN = std::string(342, 'A') + "Q";
constexpr const char* kServers =
    "servers:\n  fs:\n    command: node\n  github:\n    command: node\n";

class AuthSectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-auth-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    write("jwks.json", R"({"keys":[{"kty":"RSA","kid":"k1","n":")" + kN + R"(","e":"AQAB"}]})");
    write("cert.pem", "not checked at load\n");
    write("key.pem", "not checked at load\n");
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
  std::expected<std::shared_ptr<const Config>, Error> load(const std::string& text) {
    return loadConfig(write("gw.yaml", text));
  }
  std::string errorOf(const std::string& text) {
    auto loaded = load(text);
    return loaded ? "(loaded without error)" : loaded.error().message;
  }
  std::string at(int line, const std::string& message) {
    return dir_ + "/gw.yaml:" + std::to_string(line) + ": " + message;
  }
  std::string dir_;
};

TEST_F(AuthSectionTest, LoadsTokensJwtClientsAndTls) {
  auto loaded = load(std::string(kServers) + R"(auth:
  tokens:
    - {client: ci-bot, sha256: )" +
                     std::string(64, 'A') + R"(}
  jwt: {jwks_file: jwks.json, issuer: "https://idp", audience: [mcpgate, api], client_claim: azp,
        leeway: 30s}
  authorization_servers: ["https://idp"]
  public_url: https://gw.example.com/
  clients:
    ci-bot: {servers: [github, fs], max_sessions: 4, rate: {per_second: 20, burst: 40}}
    "*": {servers: [fs], rate: {per_second: 2.5}}
insecure_no_auth: false
tls: {cert_file: cert.pem, key_file: key.pem}
)");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Config& config = **loaded;
  ASSERT_TRUE(config.auth.enabled());
  ASSERT_EQ(config.auth.tokens.size(), 1u);
  EXPECT_EQ(config.auth.tokens[0].client, "ci-bot");
  EXPECT_EQ(config.auth.tokens[0].sha256_hex, kHash) << "stored in lower case";
  ASSERT_TRUE(config.auth.jwt);
  EXPECT_EQ(config.auth.jwt->jwks_file, dir_ + "/jwks.json");
  EXPECT_EQ(config.auth.jwt->audiences, (std::vector<std::string>{"mcpgate", "api"}));
  EXPECT_EQ(config.auth.jwt->client_claim, "azp");
  EXPECT_EQ(config.auth.jwt->leeway, std::chrono::seconds(30));
  EXPECT_EQ(config.auth.public_url, "https://gw.example.com");
  const ClientConfig& bot = config.auth.clients.at("ci-bot");
  EXPECT_EQ(bot.servers, (std::vector<std::string>{"github", "fs"}));
  EXPECT_EQ(bot.max_sessions, 4u);
  EXPECT_EQ(bot.rate_per_second, 20);
  EXPECT_EQ(bot.rate_burst, 40u);
  EXPECT_EQ(config.auth.clients.at("*").rate_burst, 3u) << "burst defaults to ceil(per_second)";
  EXPECT_EQ(findClient(config.auth, "someone")->name, "*");
  EXPECT_EQ(config.tls.cert_file, dir_ + "/cert.pem");
  EXPECT_FALSE(config.insecure_no_auth);
  const std::string described = describeConfig(config);
  EXPECT_NE(described.find("sha256: " + kHash), std::string::npos) << described;
  EXPECT_NE(described.find("insecure_no_auth: false"), std::string::npos);
}

TEST_F(AuthSectionTest, DefaultsAreClosed) {
  auto loaded = load(kServers);
  ASSERT_TRUE(loaded);
  EXPECT_FALSE((*loaded)->auth.enabled());
  EXPECT_FALSE((*loaded)->insecure_no_auth);
  EXPECT_FALSE((*loaded)->tls.enabled());
}

TEST_F(AuthSectionTest, Errors) {
  const std::string s = kServers;  // 5 lines
  const std::string token = "  tokens: [{client: a, sha256: " + kHash + "}]\n";
  const std::string clients = "  clients: {a: {servers: [fs]}}\n";
  EXPECT_EQ(errorOf(s + "auth:\n  tokens: [{client: a, sha256: abc}]\n" + clients),
            at(7,
               "auth.tokens.sha256 must be the 64 hex digits of the token's SHA-256 (not the "
               "token itself; `mcpgate token new` prints both)"));
  EXPECT_EQ(errorOf(s + "auth:\n" + token),
            at(7,
               "auth.tokens: client 'a' is not under auth.clients (and there is no '*' "
               "entry), so it could use no server"));
  EXPECT_EQ(errorOf(s + "auth:\n" + token + "  clients: {a: {servers: [fs, shell]}}\n"),
            at(6, "auth.clients.a.servers names 'shell', which is not a configured server"));
  EXPECT_EQ(errorOf(s + "auth:\n" + clients),
            at(6,
               "auth has neither tokens nor jwt: nobody could get in (remove the section, "
               "or add auth.tokens from `mcpgate token new`)"));
  EXPECT_EQ(errorOf(s + "auth:\n" + token + "  clients: {a: {servers: [fs], rates: {}}}\n"),
            at(8, "unknown key 'rates' in auth.clients.a (did you mean 'rate'?)"));
  EXPECT_EQ(
      errorOf(s + "auth:\n" + token + "  clients: {a: {servers: [fs], rate: {per_second: -1}}}\n"),
      at(8,
         "auth.clients.a.rate.per_second '-1' must be a number greater than 0 (at most "
         "1000000)"));
  EXPECT_EQ(errorOf(s + "auth:\n" + token + "  clients: {a: {max_sessions: 2}}\n"),
            at(8,
               "auth.clients.a: missing required key 'servers' (a list of server names, or "
               "[\"*\"])"));
  EXPECT_EQ(errorOf(s + "insecure_no_auth: yes please\n"),
            at(6, "insecure_no_auth must be true or false"));
  EXPECT_EQ(errorOf(s + "tls: {cert_file: cert.pem}\n"),
            at(6, "tls needs both cert_file and key_file"));
  EXPECT_EQ(errorOf(s + "tls: {cert_file: nope.pem, key_file: key.pem}\n"),
            at(6, "tls.cert_file 'nope.pem' (" + dir_ + "/nope.pem) does not exist"));
  EXPECT_EQ(errorOf(s + "auth:\n" + token + clients + "  public_url: https://gw/mcp\n"),
            at(9,
               "auth.public_url 'https://gw/mcp' must be SCHEME://HOST[:PORT] (http or "
               "https, no path)"));
}

TEST_F(AuthSectionTest, JwksErrors) {
  const std::string head = std::string(kServers) + "auth:\n  clients: {a: {servers: [fs]}}\n";
  const auto jwt = [&](const std::string& file) {
    return head + "  jwt: {jwks_file: " + file + ", issuer: i, audience: a}\n";
  };
  write("bad.json", "{not json");
  EXPECT_EQ(errorOf(jwt("bad.json")),
            at(8, "auth.jwt.jwks_file '" + dir_ + "/bad.json' is not valid JSON"));
  write("empty.json", R"({"keys":[{"kty":"oct","k":"c2VjcmV0"}]})");
  EXPECT_EQ(errorOf(jwt("empty.json")),
            at(8, "auth.jwt.jwks_file '" + dir_ +
                      "/empty.json' holds no RSA or EC P-256 signing key (RS256 and ES256 are "
                      "the algorithms accepted)"));
  write("short.json", R"({"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}]})");
  EXPECT_EQ(errorOf(jwt("short.json")),
            at(8, "auth.jwt.jwks_file '" + dir_ +
                      "/short.json' key 0: a P-256 key needs base64url \"x\" and \"y\" of 32 "
                      "bytes"));
  EXPECT_EQ(errorOf(head + "  jwt: {jwks_file: jwks.json, audience: a}\n"),
            at(8, "auth.jwt: missing required key 'issuer'"));
}

}  // namespace
}  // namespace mcpgate::config
