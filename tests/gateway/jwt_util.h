#pragma once

// Test keys and JWTs made with the OpenSSL API: a JWKS to put in a config and
// tokens signed the way an identity provider signs them (RS256, ES256).

#include <openssl/evp.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace mcpgate::testing {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using TestKey = std::unique_ptr<EVP_PKEY, PkeyFree>;

TestKey generateRsaKey();  // 2048 bits
TestKey generateP256Key();

// The public half as a JWK ({"kty":"RSA","n","e"} or {"kty":"EC","crv":"P-256","x","y"}).
nlohmann::json publicJwk(EVP_PKEY* key, const std::string& kid);

// header.payload.signature; `alg` RS256 or ES256 (ES256 as raw r||s).
std::string signJwt(EVP_PKEY* key, const std::string& alg, const nlohmann::json& claims,
                    const std::string& kid);

// Lower-case hex SHA-256, as auth.tokens stores it.
std::string sha256Hex(const std::string& data);

// Seconds since the epoch, now.
long long nowSeconds();

}  // namespace mcpgate::testing
