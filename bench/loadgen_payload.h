#pragma once

// The text argument mcp_loadgen sends, and the check of what comes back.
// Filler is deterministic lowercase words and spaces: nothing to JSON-escape
// and nothing a DLP rule matches. With secrets, one secret the shipped rule
// packs redact sits in the middle of every 4 KiB slot, each with its own
// random characters, between filler that starts and ends with a space.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::bench {

struct Span {
  std::size_t offset = 0;
  std::size_t size = 0;
};

struct Payload {
  std::string text;
  std::vector<Span> secrets;  // in order
  std::vector<Span> fillers;  // with secrets, one more than secrets: before, between, after

  [[nodiscard]] std::string_view at(Span s) const {
    return std::string_view(text).substr(s.offset, s.size);
  }
};

// Smallest payload that holds a secret between two runs of filler.
inline constexpr std::size_t kMinSecretsPayload = 128;
inline constexpr std::size_t kSecretSlot = 4096;

// Exactly `bytes` bytes. `with_secrets` needs bytes >= kMinSecretsPayload.
[[nodiscard]] Payload makePayload(std::size_t bytes, bool with_secrets);

enum class EchoCheck {
  kExact,         // the payload, byte for byte
  kRedacted,      // every filler run in order, and no secret verbatim in between
  kMismatch,      // anything else
  kSecretLeaked,  // filler intact, but some secrets replaced and others echoed verbatim
};

// `text` is the raw (still escaped) JSON string content of the echo; the
// payload and the replacements a gateway writes ("[REDACTED:rule-id]") need
// no escaping, so raw and decoded text are the same.
[[nodiscard]] EchoCheck checkEcho(const Payload& payload, std::string_view text);

}  // namespace mcpgate::bench
