#include "common/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>
#include <cstring>

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

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1) {
    std::abort();
  }
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256Stream::update(std::string_view data) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size()) != 1) std::abort();
}

Sha256 Sha256Stream::finish() {
  Sha256 digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest.data(), &length) != 1 ||
      length != digest.size()) {
    std::abort();
  }
  return digest;
}

namespace {

constexpr std::uint32_t kCrc32cPoly = 0x82f63b78;  // reflected Castagnoli

std::uint32_t crc32cPortable(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  while (n-- > 0) {
    crc ^= *p++;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (kCrc32cPoly & (0U - (crc & 1U)));
  }
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32cHardware(std::uint32_t crc,
                                                                const unsigned char* p,
                                                                std::size_t n) {
  std::uint64_t c = crc;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, sizeof word);
    c = __builtin_ia32_crc32di(c, word);
  }
  auto c32 = static_cast<std::uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = __builtin_ia32_crc32qi(c32, *p);
  return c32;
}
#endif

}  // namespace

std::uint32_t crc32c(std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::uint32_t crc = 0xffffffffU;
#if defined(__x86_64__)
  static const bool hardware = __builtin_cpu_supports("sse4.2") != 0;
  crc = hardware ? crc32cHardware(crc, p, data.size()) : crc32cPortable(crc, p, data.size());
#else
  crc = crc32cPortable(crc, p, data.size());
#endif
  return ~crc;
}

}  // namespace mcpgate::common
