#pragma once

// SHA-256 and HMAC-SHA256 (OpenSSL), and CRC-32C: the one home of digests and checksums.

#include <array>
#include <cstdint>
#include <string_view>

namespace mcpgate::common {

using Sha256 = std::array<unsigned char, 32>;

[[nodiscard]] Sha256 sha256(std::string_view data);
[[nodiscard]] Sha256 hmacSha256(std::string_view key, std::string_view data);

// SHA-256 of a text given in pieces: no copy of the pieces into one string first.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void update(std::string_view data);
  [[nodiscard]] Sha256 finish();

 private:
  void* ctx_;  // EVP_MD_CTX, kept out of this header
};
// CRC-32C (Castagnoli), with the CPU's crc32 instruction where it has one: a check against
// corruption of a large file read at every start (a mapped Hyperscan database), not a MAC.
[[nodiscard]] std::uint32_t crc32c(std::string_view data);

}  // namespace mcpgate::common
