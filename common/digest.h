#pragma once

// SHA-256 and HMAC-SHA256 (OpenSSL), the one home of both.

#include <array>
#include <string_view>

namespace mcpgate::common {

using Sha256 = std::array<unsigned char, 32>;

[[nodiscard]] Sha256 sha256(std::string_view data);
[[nodiscard]] Sha256 hmacSha256(std::string_view key, std::string_view data);

}  // namespace mcpgate::common
