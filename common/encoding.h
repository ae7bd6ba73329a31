#pragma once

// Lower-case hex and base64url (RFC 4648 §5, unpadded), the one home of both.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mcpgate::common {

inline constexpr std::string_view kHexDigits = "0123456789abcdef";

[[nodiscard]] std::string toHex(std::span<const unsigned char> bytes);
[[nodiscard]] std::string toHex(std::span<const std::byte> bytes);
[[nodiscard]] std::string toHex(std::string_view bytes);
// Lower-case hex back to bytes; nullopt on an odd length or any other character.
[[nodiscard]] std::optional<std::string> fromHex(std::string_view text);

// Without padding, as JWTs and our tokens write it.
[[nodiscard]] std::string encodeBase64Url(std::string_view bytes);
// Accepts trailing '=' padding; nullopt on any character outside the alphabet
// or an impossible length.
[[nodiscard]] std::optional<std::string> decodeBase64Url(std::string_view text);

}  // namespace mcpgate::common
