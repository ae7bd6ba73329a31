#pragma once

// Rewriting findings out of a message. Every replacement is itself valid UTF-8 text placed inside
// a JSON string, so the message stays valid JSON.

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "dlp/error.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {

struct RedactOptions {
  // Key for `redact: hash`. Equal secrets give equal tokens under one key, so an operator can
  // correlate findings across messages without seeing them. Empty: a random per-process key.
  std::string hmac_key;
};

// The text that replaces `secret` for `rule`: "[REDACTED:<id>]", the masked secret, or
// "[REDACTED:<id>:<first 16 hex digits of HMAC-SHA256(key, secret)>]".
[[nodiscard]] std::string replacement(const Rule& rule, std::string_view secret,
                                      const RedactOptions& options = {});

// A preview for logs and `mcpgate scan`: a few characters at each end and stars between, never
// more than a third of the secret and never the whole of a short one.
[[nodiscard]] std::string maskedPreview(std::string_view secret);

// Replaces the spans of `findings` in `text` (findings of one string; overlapping spans merge).
[[nodiscard]] std::string redactText(std::string_view text, std::span<const Finding> findings,
                                     const RedactOptions& options = {});

// Rewrites every finding whose action is redact or block in `message` (values and keys).
// Returns how many strings changed; an error if a finding's pointer no longer resolves.
[[nodiscard]] std::expected<std::size_t, Error> redact(nlohmann::json& message,
                                                       const Findings& findings,
                                                       const RedactOptions& options = {});

}  // namespace mcpgate::dlp
