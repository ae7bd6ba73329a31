#pragma once

// ${secret:NAME} in a server's env (or a sandbox section's env): while the
// file is read each reference becomes a placeholder that no YAML scalar can
// hold (NUL bytes are refused there); once state_dir is known the store is
// opened and the placeholders are replaced with the decrypted values.

#include <expected>
#include <string>

#include "config/config.h"

namespace mcpgate::config {

[[nodiscard]] std::string secretPlaceholder(const std::string& name);

// Replaces every placeholder with its value from the store under state_dir
// (secrets/store.h says where the key comes from). Without references the
// store is not touched. A missing store, a wrong key, an unknown or altered
// secret are errors that name the server and variable, never a value.
[[nodiscard]] std::expected<void, Error> resolveSecretReferences(Config& config);

}  // namespace mcpgate::config
