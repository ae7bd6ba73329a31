#include "tests/gateway/jwt_util.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>

#include <chrono>
#include <stdexcept>
#include <vector>

namespace mcpgate::testing {
namespace {

std::string base64Url(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (unsigned char b : bytes) {
    bits = (bits << 8) | b;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  return out;
}

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
            {"n", base64Url(bignumBytes(key, OSSL_PKEY_PARAM_RSA_N))},
            {"e", base64Url(bignumBytes(key, OSSL_PKEY_PARAM_RSA_E))}};
  }
  return {{"kty", "EC"},
          {"kid", kid},
          {"crv", "P-256"},
          {"x", base64Url(bignumBytes(key, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
          {"y", base64Url(bignumBytes(key, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
}

std::string signJwt(EVP_PKEY* key, const std::string& alg, const nlohmann::json& claims,
                    const std::string& kid) {
  nlohmann::json header = {{"alg", alg}, {"typ", "JWT"}};
  if (!kid.empty()) header["kid"] = kid;
  const std::string input = base64Url(header.dump()) + "." + base64Url(claims.dump());
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
  return input + "." + base64Url(raw);
}

std::string sha256Hex(const std::string& data) {
  unsigned char digest[32];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

long long nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace mcpgate::testing
