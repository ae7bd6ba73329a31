#include "gateway/guard/auth.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/digest.h"
#include "common/encoding.h"
#include "config/auth_section.h"

namespace mcpgate::gateway::auth {
namespace {

using nlohmann::json;

// Far above any real JWT; bounds the work an unauthenticated caller can cause.
constexpr std::size_t kMaxTokenBytes = 16 * 1024;
constexpr std::size_t kMaxClientNameBytes = 256;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG, ECDSA_SIG_free>>;

BnPtr toBignum(const std::string& bytes) {
  return BnPtr(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()),
                         static_cast<int>(bytes.size()), nullptr));
}

PkeyPtr fromParams(const char* type, OSSL_PARAM_BLD* builder) {
  ParamPtr params(OSSL_PARAM_BLD_to_param(builder));
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return PkeyPtr(key);
}

PkeyPtr rsaKey(const std::string& n, const std::string& e) {
  BnPtr bn_n = toBignum(n);
  BnPtr bn_e = toBignum(e);
  ParamBldPtr builder(OSSL_PARAM_BLD_new());
  if (!bn_n || !bn_e || !builder ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return nullptr;
  }
  return fromParams("RSA", builder.get());
}

PkeyPtr p256Key(const std::string& x, const std::string& y) {
  std::string point = "\x04" + x + y;  // uncompressed SEC1 point
  ParamBldPtr builder(OSSL_PARAM_BLD_new());
  if (!builder ||
      OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return nullptr;
  }
  return fromParams("EC", builder.get());
}

// JWS ES256 signatures are r||s, 32 bytes each; EVP_DigestVerify wants DER.
std::optional<std::string> ecdsaRawToDer(std::string_view raw) {
  if (raw.size() != 64) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  EcdsaSigPtr sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, 32, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + 32, 32, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int length = i2d_ECDSA_SIG(sig.get(), &der);
  if (length <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

bool verifySha256(EVP_PKEY* key, std::string_view data, std::string_view signature) {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  return ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                          data.size()) == 1;
}

AuthError invalid(std::string description) {
  return {AuthError::Kind::kInvalid, std::move(description)};
}

std::optional<double> numericDate(const json& claims, const char* name) {
  if (!claims.contains(name) || !claims[name].is_number()) return std::nullopt;
  const double value = claims[name].get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

struct Authenticator::Key {
  std::string kid;
  bool rsa = false;  // else EC P-256
  PkeyPtr pkey;
};

Authenticator::Authenticator(const config::Config& config) : auth_(config.auth) {}
Authenticator::~Authenticator() = default;

std::expected<std::shared_ptr<const Authenticator>, std::string> Authenticator::create(
    const config::Config& config) {
  std::shared_ptr<Authenticator> self(new Authenticator(config));
  for (const config::TokenConfig& token : config.auth.tokens) {
    std::string raw;
    for (std::size_t i = 0; i + 1 < token.sha256_hex.size(); i += 2) {
      raw += static_cast<char>(std::stoi(token.sha256_hex.substr(i, 2), nullptr, 16));
    }
    self->token_hashes_.push_back(std::move(raw));
  }
  if (config.auth.jwt) {
    const json jwks = json::parse(config.auth.jwt->jwks, nullptr, false);
    const std::string where = config.auth.jwt->jwks_file + ": ";
    if (jwks.is_discarded() || !jwks.contains("keys")) return std::unexpected(where + "not a JWKS");
    for (const json& entry : jwks["keys"]) {
      if (entry.contains("use") && entry["use"] != "sig") continue;
      const auto member = [&](const char* name) -> std::string {
        if (!entry.contains(name) || !entry[name].is_string()) return {};
        return common::decodeBase64Url(entry[name].get<std::string>()).value_or("");
      };
      auto key = std::make_unique<Key>();
      if (entry.contains("kid") && entry["kid"].is_string()) key->kid = entry["kid"];
      if (entry["kty"] == "RSA") {
        key->rsa = true;
        key->pkey = rsaKey(member("n"), member("e"));
      } else if (entry["kty"] == "EC" && entry.value("crv", "") == "P-256") {
        key->pkey = p256Key(member("x"), member("y"));
      } else {
        continue;
      }
      if (!key->pkey) {
        return std::unexpected(where + "key '" + key->kid +
                               "' is not a valid public key (an EC point off the curve?)");
      }
      self->keys_.push_back(std::move(key));
    }
  }
  return self;
}

std::expected<Identity, AuthError> Authenticator::authenticate(
    std::string_view authorization, std::chrono::system_clock::time_point now) const {
  if (authorization.empty()) {
    return std::unexpected(AuthError{AuthError::Kind::kMissing, "no bearer token"});
  }
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), authorization.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return std::unexpected(invalid("the Authorization header must be 'Bearer TOKEN'"));
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty() || token.size() > kMaxTokenBytes) {
    return std::unexpected(invalid("invalid token"));
  }
  if (auth_.jwt && std::count(token.begin(), token.end(), '.') == 2) return verifyJwt(token, now);

  // Every stored hash is compared, in constant time, whatever matches first.
  const common::Sha256 digest = common::sha256(token);
  const config::TokenConfig* match = nullptr;
  for (std::size_t i = 0; i < token_hashes_.size(); ++i) {
    if (CRYPTO_memcmp(digest.data(), token_hashes_[i].data(), digest.size()) == 0) {
      match = &auth_.tokens[i];
    }
  }
  if (match == nullptr) return std::unexpected(invalid("invalid token"));
  return Identity{match->client};
}

std::expected<Identity, AuthError> Authenticator::verifyJwt(
    std::string_view token, std::chrono::system_clock::time_point now) const {
  const config::JwtConfig& jwt = *auth_.jwt;
  const std::size_t first = token.find('.');
  const std::size_t second = token.find('.', first + 1);
  const std::string_view signed_part = token.substr(0, second);
  auto header_text = common::decodeBase64Url(token.substr(0, first));
  auto claims_text = common::decodeBase64Url(token.substr(first + 1, second - first - 1));
  auto signature = common::decodeBase64Url(token.substr(second + 1));
  if (!header_text || !claims_text || !signature) {
    return std::unexpected(invalid("malformed JWT"));
  }
  const json header = json::parse(*header_text, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("alg") ||
      !header["alg"].is_string()) {
    return std::unexpected(invalid("malformed JWT header"));
  }
  // Never "none", never HS*: only the two algorithms the JWKS keys can check.
  const std::string alg = header["alg"];
  if (alg != "RS256" && alg != "ES256") {
    // The name comes from the caller: said back only when short and printable.
    const bool printable = alg.size() <= 16 && std::ranges::all_of(alg, [](char c) {
                             return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
                           });
    return std::unexpected(invalid("JWT algorithm " +
                                   (printable ? "'" + alg + "'" : "(unprintable)") +
                                   " is not accepted (RS256, ES256)"));
  }
  if (header.contains("crit")) return std::unexpected(invalid("JWT with crit header"));
  const bool rsa = alg == "RS256";
  std::string kid;
  if (header.contains("kid")) {
    if (!header["kid"].is_string()) return std::unexpected(invalid("malformed JWT header"));
    kid = header["kid"];
  }
  std::string der;
  if (!rsa) {
    auto converted = ecdsaRawToDer(*signature);
    if (!converted) return std::unexpected(invalid("malformed ES256 signature"));
    der = std::move(*converted);
  }
  bool verified = false;
  bool any_key = false;
  for (const auto& key : keys_) {
    if (key->rsa != rsa || (!kid.empty() && key->kid != kid)) continue;
    any_key = true;
    if (verifySha256(key->pkey.get(), signed_part, rsa ? *signature : der)) {
      verified = true;
      break;
    }
  }
  if (!any_key) return std::unexpected(invalid("no " + alg + " key in the JWKS matches the JWT"));
  if (!verified) return std::unexpected(invalid("JWT signature does not verify"));

  const json claims = json::parse(*claims_text, nullptr, false);
  if (claims.is_discarded() || !claims.is_object()) {
    return std::unexpected(invalid("malformed JWT claims"));
  }
  if (!claims.contains("iss") || claims["iss"] != jwt.issuer) {
    return std::unexpected(invalid("JWT issuer is not " + jwt.issuer));
  }
  bool audience_ok = false;
  if (claims.contains("aud")) {
    const json& aud = claims["aud"];
    const auto accepted = [&](const json& one) {
      return one.is_string() &&
             std::ranges::find(jwt.audiences, one.get<std::string>()) != jwt.audiences.end();
    };
    audience_ok = aud.is_array() ? std::ranges::any_of(aud, accepted) : accepted(aud);
  }
  if (!audience_ok) return std::unexpected(invalid("JWT audience does not name this gateway"));
  const double seconds = std::chrono::duration<double>(now.time_since_epoch()).count();
  const double leeway = static_cast<double>(jwt.leeway.count());
  auto exp = numericDate(claims, "exp");
  if (!exp) return std::unexpected(invalid("JWT has no exp"));
  if (seconds > *exp + leeway) {
    return std::unexpected(AuthError{AuthError::Kind::kExpired, "token expired"});
  }
  if (auto nbf = numericDate(claims, "nbf"); nbf && seconds + leeway < *nbf) {
    return std::unexpected(invalid("JWT not valid yet (nbf)"));
  }
  if (!claims.contains(jwt.client_claim) || !claims[jwt.client_claim].is_string() ||
      claims[jwt.client_claim].get<std::string>().empty() ||
      claims[jwt.client_claim].get<std::string>().size() > kMaxClientNameBytes) {
    return std::unexpected(invalid("JWT has no string claim '" + jwt.client_claim + "'"));
  }
  return Identity{claims[jwt.client_claim].get<std::string>()};
}

bool Authenticator::mayUse(std::string_view client, std::string_view server) const {
  const config::ClientConfig* entry = config::findClient(auth_, client);
  if (entry == nullptr) return false;
  return std::ranges::any_of(entry->servers,
                             [&](const std::string& s) { return s == "*" || s == server; });
}

RateLimiter::RateLimiter(const config::Config& config) : auth_(config.auth) {}

std::optional<std::chrono::seconds> RateLimiter::acquire(
    const std::string& client, std::chrono::steady_clock::time_point now) {
  const config::ClientConfig* entry = config::findClient(auth_, client);
  if (entry == nullptr || entry->rate_per_second <= 0) return std::nullopt;
  const double burst = entry->rate_burst;
  std::lock_guard lock(mu_);
  if (buckets_.size() >= prune_at_ && !buckets_.contains(client)) {
    // JWT clients are whoever the IdP names: forget the buckets that have
    // refilled, so the map holds about the clients active within a refill.
    std::erase_if(buckets_, [&](const auto& named) {
      const config::ClientConfig* owner = config::findClient(auth_, named.first);
      return owner == nullptr ||
             named.second.tokens + std::chrono::duration<double>(now - named.second.last).count() *
                                       owner->rate_per_second >=
                 owner->rate_burst;
    });
    // Doubling the threshold keeps the scans amortised O(1) per new client.
    prune_at_ = std::max(kMinPruneAt, 2 * buckets_.size());
  }
  auto [it, inserted] = buckets_.try_emplace(client, Bucket{burst, now});
  Bucket& bucket = it->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
  bucket.tokens = std::min(burst, bucket.tokens + std::max(0.0, elapsed) * entry->rate_per_second);
  bucket.last = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return std::nullopt;
  }
  const double wait = (1 - bucket.tokens) / entry->rate_per_second;
  return std::chrono::seconds(std::max<long long>(1, static_cast<long long>(std::ceil(wait))));
}

std::string newToken() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return {};
  return "mcpg_" + common::encodeBase64Url(
                       std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace mcpgate::gateway::auth
