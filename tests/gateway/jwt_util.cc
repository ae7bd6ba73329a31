#include "tests/gateway/jwt_util.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "common/digest.h"
#include "common/encoding.h"

namespace mcpgate::testing {
namespace {

std::string bignumBytes(EVP_PKEY* key, const char* name, int pad_to = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) throw std::runtime_error("get_bn_param");
  std::vector<unsigned char> out(std::max(BN_num_bytes(bn), pad_to));
  BN_bn2binpad(bn, out.data(), static_cast<int>(out.size()));
  BN_free(bn);
  return std::string(out.begin(), out.end());
}

}  // namespace

TestKey generateRsaKey() {
  return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048}));
}

TestKey generateP256Key() { return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")); }

nlohmann::json publicJwk(EVP_PKEY* key, const std::string& kid) {
  if (EVP_PKEY_is_a(key, "RSA")) {
    return {{"kty", "RSA"},
            {"kid", kid},
            {"use", "sig"},
            {"alg", "RS256"},
            {"n", common::encodeBase64Url(bignumBytes(key, OSSL_PKEY_PARAM_RSA_N))},
            {"e", common::encodeBase64Url(bignumBytes(key, OSSL_PKEY_PARAM_RSA_E))}};
  }
  return {{"kty", "EC"},
          {"kid", kid},
          {"crv", "P-256"},
          {"x", common::encodeBase64Url(bignumBytes(key, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
          {"y", common::encodeBase64Url(bignumBytes(key, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
}

std::string signJwt(EVP_PKEY* key, const std::string& alg, const nlohmann::json& claims,
                    const std::string& kid) {
  nlohmann::json header = {{"alg", alg}, {"typ", "JWT"}};
  if (!kid.empty()) header["kid"] = kid;
  const std::string input =
      common::encodeBase64Url(header.dump()) + "." + common::encodeBase64Url(claims.dump());
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  std::size_t length = 0;
  std::vector<unsigned char> signature;
  if (EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key) != 1 ||
      EVP_DigestSign(ctx, nullptr, &length, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    throw std::runtime_error("sign");
  }
  signature.resize(length);
  EVP_DigestSign(ctx, signature.data(), &length,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  signature.resize(length);
  EVP_MD_CTX_free(ctx);
  std::string raw(signature.begin(), signature.end());
  if (alg == "ES256") {  // DER -> r||s
    const unsigned char* p = signature.data();
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(signature.size()));
    unsigned char rs[64];
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), rs, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), rs + 32, 32);
    ECDSA_SIG_free(sig);
    raw.assign(reinterpret_cast<char*>(rs), 64);
  }
  return input + "." + common::encodeBase64Url(raw);
}

std::string sha256Hex(const std::string& data) { return common::toHex(common::sha256(data)); }

long long nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace mcpgate::testing
