#pragma once

// Who gets in: the `auth:`, `tls:` and `insecure_no_auth:` keys of the config
// file (config/ only; the gateway verifies tokens in gateway/auth.cc).

#include <yaml-cpp/yaml.h>

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

[[nodiscard]] std::expected<void, Error> loadAuthSection(const detail::Reader& reader,
                                                         const detail::Entry& e, AuthConfig& auth);
[[nodiscard]] std::expected<void, Error> loadTlsSection(const detail::Reader& reader,
                                                        const detail::Entry& e, TlsConfig& tls);

// Once the whole file is read (servers may come after auth): every server a
// client names exists, every token's client is listed.
[[nodiscard]] std::expected<void, Error> resolveAuthSection(const detail::Reader& reader,
                                                            int auth_line, Config& config);

// The effective sections, for `mcpgate config check` (hashes shown, they are
// not secrets; the JWKS by file name only).
void emitAuthSection(YAML::Emitter& out, const AuthConfig& auth);
void emitTlsSection(YAML::Emitter& out, const TlsConfig& tls);

}  // namespace mcpgate::config
