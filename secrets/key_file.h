#pragma once

// Key files: the audit hash key and the secret store's key live in files
// only their owner may read. One home for creating and checking them.

#include <expected>
#include <string>
#include <string_view>

namespace mcpgate::secrets {

// Shortest key accepted from a file, the environment or a credential.
inline constexpr std::size_t kMinKeyBytes = 32;

// The key in `path`: its bytes without trailing whitespace, at least
// kMinKeyBytes. A missing file is created 0600 (its directory 0700) with 32
// bytes from the CSPRNG in hex when `create` is set. A key file other users
// may read or write, or that is not ours, is refused: whoever holds it can
// read what it protects. `what` names the key in messages ("audit key").
[[nodiscard]] std::expected<std::string, std::string> loadKeyFile(const std::string& path,
                                                                  std::string_view what,
                                                                  bool create);

// A fresh key as the key files hold it: 32 CSPRNG bytes in hex.
[[nodiscard]] std::expected<std::string, std::string> newKeyText();

// Writes `bytes` to `path` through a 0600 temporary file renamed over it
// (its directory created 0700 when missing): readers see the old or the new
// file, never half of one.
[[nodiscard]] std::expected<void, std::string> replacePrivateFile(const std::string& path,
                                                                  std::string_view bytes);

}  // namespace mcpgate::secrets
