// gateway/auth: bearer tokens, JWT verification (keys made here with the
// OpenSSL API), which servers a client may use, and the rate limiter.

#include "gateway/guard/auth.h"

#include <gtest/gtest.h>

#include "common/digest.h"
#include "common/encoding.h"
#include "tests/gateway/jwt_util.h"

namespace mcpgate::gateway::auth {
namespace {

using mcpgate::testing::generateP256Key;
using mcpgate::testing::generateRsaKey;
using mcpgate::testing::nowSeconds;
using mcpgate::testing::publicJwk;
using mcpgate::testing::signJwt;
using mcpgate::testing::TestKey;
using nlohmann::json;
using Kind = AuthError::Kind;
using common::sha256;
using common::toHex;

class AuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rsa_ = generateRsaKey().release();
    ec_ = generateP256Key().release();
    other_rsa_ = generateRsaKey().release();
  }
  static void TearDownTestSuite() {
    EVP_PKEY_free(rsa_);
    EVP_PKEY_free(ec_);
    EVP_PKEY_free(other_rsa_);
  }

  config::Config makeConfig() const {
    config::Config config;
    config.auth.tokens.push_back({"alice", testing_sha256Hex("mcpg_alice"), 1});
    config.auth.tokens.push_back({"bob", testing_sha256Hex("mcpg_bob"), 2});
    config::JwtConfig jwt;
    jwt.jwks_file = "jwks.json";
    jwt.jwks = json{{"keys", {publicJwk(rsa_, "r1"), publicJwk(ec_, "e1")}}}.dump();
    jwt.issuer = "https://idp";
    jwt.audiences = {"mcpgate", "other-api"};
    config.auth.jwt = jwt;
    config.auth.clients["alice"] = {"alice", {"fs", "github"}, 0, 0, 0};
    config.auth.clients["bob"] = {"bob", {"*"}, 0, 2, 2};
    return config;
  }
  static std::string testing_sha256Hex(const std::string& s) { return toHex(sha256(s)); }

  std::shared_ptr<const Authenticator> make(const config::Config& config) const {
    auto a = Authenticator::create(config);
    EXPECT_TRUE(a.has_value()) << a.error();
    return a.value_or(nullptr);
  }

  json claims(long long exp_offset = 300) const {
    return {{"iss", "https://idp"},
            {"aud", "mcpgate"},
            {"sub", "carol"},
            {"exp", nowSeconds() + exp_offset}};
  }

  static EVP_PKEY* rsa_;
  static EVP_PKEY* ec_;
  static EVP_PKEY* other_rsa_;
};
EVP_PKEY* AuthTest::rsa_ = nullptr;
EVP_PKEY* AuthTest::ec_ = nullptr;
EVP_PKEY* AuthTest::other_rsa_ = nullptr;

TEST_F(AuthTest, StaticTokens) {
  auto auth = make(makeConfig());
  EXPECT_EQ(auth->authenticate("Bearer mcpg_alice")->client, "alice");
  EXPECT_EQ(auth->authenticate("bearer mcpg_bob")->client, "bob");
  EXPECT_EQ(auth->authenticate("").error().kind, Kind::kMissing);
  EXPECT_EQ(auth->authenticate("Bearer mcpg_alicf").error().kind, Kind::kInvalid);
  EXPECT_EQ(auth->authenticate("Bearer ").error().kind, Kind::kInvalid);
  EXPECT_EQ(auth->authenticate("Basic mcpg_alice").error().kind, Kind::kInvalid);
  EXPECT_EQ(auth->authenticate("mcpg_alice").error().kind, Kind::kInvalid);
  EXPECT_EQ(auth->authenticate("Bearer " + std::string(20000, 'a')).error().kind, Kind::kInvalid);
}

TEST_F(AuthTest, Sha256KnownAnswerAndNewToken) {
  EXPECT_EQ(toHex(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string a = newToken();
  const std::string b = newToken();
  EXPECT_TRUE(a.starts_with("mcpg_"));
  EXPECT_EQ(a.size(), 5u + 43u);  // 32 bytes in unpadded base64url
  EXPECT_NE(a, b);
  EXPECT_EQ(
      a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", 5),
      std::string::npos);
}

TEST_F(AuthTest, JwtRs256AndEs256) {
  auto auth = make(makeConfig());
  auto rs = auth->authenticate("Bearer " + signJwt(rsa_, "RS256", claims(), "r1"));
  ASSERT_TRUE(rs.has_value()) << rs.error().description;
  EXPECT_EQ(rs->client, "carol");
  auto es = auth->authenticate("Bearer " + signJwt(ec_, "ES256", claims(), "e1"));
  ASSERT_TRUE(es.has_value()) << es.error().description;
  EXPECT_EQ(es->client, "carol");
  // Without a kid, every key of the algorithm's type is tried.
  EXPECT_TRUE(auth->authenticate("Bearer " + signJwt(ec_, "ES256", claims(), "")).has_value());
  // aud as an array naming one accepted audience.
  json multi = claims();
  multi["aud"] = {"someone-else", "other-api"};
  EXPECT_TRUE(auth->authenticate("Bearer " + signJwt(rsa_, "RS256", multi, "r1")).has_value());
}

TEST_F(AuthTest, JwtRefusals) {
  auto auth = make(makeConfig());
  const auto why = [&](const std::string& token) {
    auto r = auth->authenticate("Bearer " + token);
    return r ? std::string("accepted") : r.error().description;
  };
  auto expired = auth->authenticate("Bearer " + signJwt(rsa_, "RS256", claims(-120), "r1"));
  ASSERT_FALSE(expired.has_value());
  EXPECT_EQ(expired.error().kind, Kind::kExpired);
  // Within the 60 s leeway it still passes.
  EXPECT_EQ(why(signJwt(rsa_, "RS256", claims(-30), "r1")), "accepted");

  json c = claims();
  c["iss"] = "https://evil";
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT issuer is not https://idp");
  c = claims();
  c["aud"] = "someone-else";
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT audience does not name this gateway");
  c = claims();
  c.erase("aud");
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT audience does not name this gateway");
  c = claims();
  c.erase("exp");
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT has no exp");
  c = claims();
  c["nbf"] = nowSeconds() + 3600;
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT not valid yet (nbf)");
  c = claims();
  c.erase("sub");
  EXPECT_EQ(why(signJwt(rsa_, "RS256", c, "r1")), "JWT has no string claim 'sub'");

  // Signed by a key the JWKS does not hold, under a kid it does.
  EXPECT_EQ(why(signJwt(other_rsa_, "RS256", claims(), "r1")), "JWT signature does not verify");
  EXPECT_EQ(why(signJwt(rsa_, "RS256", claims(), "nope")),
            "no RS256 key in the JWKS matches the JWT");
  // A payload changed after signing.
  std::string good = signJwt(rsa_, "RS256", claims(), "r1");
  std::string tampered = signJwt(rsa_, "RS256", claims(), "r1");
  json other = claims();
  other["sub"] = "admin";
  std::string forged = signJwt(other_rsa_, "RS256", other, "r1");
  tampered = tampered.substr(0, tampered.find('.')) +
             forged.substr(forged.find('.'), forged.rfind('.') - forged.find('.')) +
             good.substr(good.rfind('.'));
  EXPECT_EQ(why(tampered), "JWT signature does not verify");

  // alg none and HS256 are never accepted, whatever the signature.
  const std::string body = good.substr(good.find('.'), good.rfind('.') - good.find('.'));
  EXPECT_EQ(why("eyJhbGciOiJub25lIn0" + body + "."),
            "JWT algorithm 'none' is not accepted (RS256, ES256)");
  EXPECT_EQ(why("eyJhbGciOiJIUzI1NiJ9" + body + ".c2ln"),
            "JWT algorithm 'HS256' is not accepted (RS256, ES256)");
  // An RS256 header over an EC signature finds no RSA key with kid e1.
  EXPECT_EQ(why(signJwt(rsa_, "RS256", claims(), "e1")),
            "no RS256 key in the JWKS matches the JWT");
  EXPECT_EQ(why("e30.e30.c2ln"), "malformed JWT header");  // {} has no alg
  EXPECT_EQ(why("!!.b.c"), "malformed JWT");
}

TEST_F(AuthTest, CustomClientClaim) {
  config::Config config = makeConfig();
  config.auth.jwt->client_claim = "azp";
  auto auth = make(config);
  json c = claims();
  c["azp"] = "ci-bot";
  EXPECT_EQ(auth->authenticate("Bearer " + signJwt(ec_, "ES256", c, "e1"))->client, "ci-bot");
}

TEST_F(AuthTest, BadJwksKeyIsAnError) {
  config::Config config = makeConfig();
  // A P-256 "point" that is not on the curve.
  config.auth.jwt->jwks =
      R"({"keys":[{"kty":"EC","crv":"P-256","kid":"bad","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]})";
  auto auth = Authenticator::create(config);
  ASSERT_FALSE(auth.has_value());
  EXPECT_NE(auth.error().find("key 'bad' is not a valid public key"), std::string::npos);
}

TEST_F(AuthTest, ServersPerClient) {
  config::Config config = makeConfig();
  auto auth = make(config);
  EXPECT_TRUE(auth->mayUse("alice", "fs"));
  EXPECT_FALSE(auth->mayUse("alice", "shell"));
  EXPECT_TRUE(auth->mayUse("bob", "anything"));
  EXPECT_FALSE(auth->mayUse("carol", "fs")) << "an unlisted client may use nothing";
  config.auth.clients["*"] = {"*", {"fs"}, 0, 0, 0};
  auto with_default = make(config);
  EXPECT_TRUE(with_default->mayUse("carol", "fs"));
  EXPECT_FALSE(with_default->mayUse("carol", "github"));
  EXPECT_FALSE(with_default->mayUse("alice", "shell")) << "a listed client keeps its own list";
}

TEST_F(AuthTest, TokenBucket) {
  RateLimiter limiter(makeConfig());  // bob: 2 per second, burst 2; alice: no limit
  auto t = std::chrono::steady_clock::now();
  EXPECT_FALSE(limiter.acquire("bob", t));
  EXPECT_FALSE(limiter.acquire("bob", t));
  auto wait = limiter.acquire("bob", t);
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->count(), 1);
  EXPECT_FALSE(limiter.acquire("bob", t + std::chrono::milliseconds(600)));
  EXPECT_TRUE(limiter.acquire("bob", t + std::chrono::milliseconds(600)));
  // Refills to the burst, not beyond.
  auto later = t + std::chrono::seconds(60);
  EXPECT_FALSE(limiter.acquire("bob", later));
  EXPECT_FALSE(limiter.acquire("bob", later));
  EXPECT_TRUE(limiter.acquire("bob", later));
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(limiter.acquire("alice", t));
}

TEST_F(AuthTest, ManyJwtClientsDoNotResetALimitedOne) {
  config::Config config = makeConfig();
  config.auth.clients["*"] = {"*", {"fs"}, 0, 1, 1};
  RateLimiter limiter(config);
  auto t = std::chrono::steady_clock::now();
  EXPECT_FALSE(limiter.acquire("eve", t));
  EXPECT_TRUE(limiter.acquire("eve", t));
  // More distinct clients than the limiter keeps, arriving after their own
  // buckets could refill: the full ones are forgotten, eve's empty one is not.
  for (int i = 0; i < 12000; ++i) {
    (void)limiter.acquire("client-" + std::to_string(i), t + std::chrono::milliseconds(i / 100));
  }
  EXPECT_TRUE(limiter.acquire("eve", t + std::chrono::milliseconds(200)));
  EXPECT_FALSE(limiter.acquire("eve", t + std::chrono::seconds(2)));
}

}  // namespace
}  // namespace mcpgate::gateway::auth
