#include "common/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

namespace mcpgate::common {

// Both fail only when OpenSSL cannot allocate or has no SHA-256: a digest of
// zeros would match another's, so stop rather than return one.
Sha256 sha256(std::string_view data) {
  Sha256 digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != digest.size()) {
    std::abort();
  }
  return digest;
}

Sha256 hmacSha256(std::string_view key, std::string_view data) {
  Sha256 digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data(),
           &length) == nullptr ||
      length != digest.size()) {
    std::abort();
  }
  return digest;
}

}  // namespace mcpgate::common
