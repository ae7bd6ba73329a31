#include "bench/loadgen_payload.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mcpgate::bench {

namespace {

// Plain nature words: nothing a secret, PII, injection or command rule keys on.
constexpr std::array<std::string_view, 64> kWords = {
    "amber",   "river",   "meadow", "stone",   "cloud",  "harbor", "maple",   "cedar",
    "lantern", "willow",  "pebble", "orchard", "canyon", "breeze", "garden",  "violet",
    "copper",  "forest",  "island", "valley",  "candle", "marble", "thistle", "falcon",
    "ember",   "glacier", "hollow", "juniper", "lagoon", "nectar", "oasis",   "prairie",
    "ripple",  "saffron", "tundra", "velvet",  "wander", "zephyr", "basket",  "comet",
    "dune",    "fern",    "grove",  "hazel",   "ivory",  "jasper", "kelp",    "lilac",
    "moss",    "nutmeg",  "olive",  "plume",   "quill",  "reed",   "sparrow", "timber",
    "acorn",   "bramble", "clover", "dawn",    "heron",  "linden", "pine",    "brook",
};

// splitmix64: a fixed seed gives the same payload on every run and machine.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  char pick(std::string_view alphabet) { return alphabet[next() % alphabet.size()]; }

 private:
  std::uint64_t state_;
};

// Exactly `size` bytes of words and single spaces; a space first and last when
// a secret is next to it, so the rules see a word boundary.
void appendFiller(std::string& out, std::size_t size, Rng& rng, bool space_first, bool space_last) {
  const std::size_t start = out.size();
  while (out.size() - start < size) {
    if (out.size() > start) out.push_back(' ');
    out += kWords[rng.next() % kWords.size()];
  }
  out.resize(start + size);
  if (size == 0) return;
  if (space_first) out[start] = ' ';
  if (space_last) out.back() = ' ';
}

// Secrets of three kinds the shipped packs redact (action: redact):
//   aws-access-key-id (rules/secrets/cloud.yaml): AKIA + 16 of [A-Z2-7]
//   github-pat-classic (rules/secrets/dev_tools.yaml): ghp_ + 36 alphanumerics
//   phone-number-e164 (rules/pii.yaml): +1 and ten digits
std::string makeSecret(std::size_t index, Rng& rng) {
  constexpr std::string_view kBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  constexpr std::string_view kAlnum =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  constexpr std::string_view kDigits = "0123456789";
  std::string s;
  switch (index % 3) {
    case 0:
      // The rule's stopword "EXAMPLE" would exempt the key.
      do {
        s = "AKIA";
        for (int i = 0; i < 16; ++i) s.push_back(rng.pick(kBase32));
      } while (s.find("EXAMPLE") != std::string::npos);
      break;
    case 1:
      s = "ghp_";
      for (int i = 0; i < 36; ++i) s.push_back(rng.pick(kAlnum));
      break;
    default:
      s = "+1";
      s.push_back(rng.pick("23456789"));
      for (int i = 0; i < 9; ++i) s.push_back(rng.pick(kDigits));
      break;
  }
  return s;
}

// Longest text a gateway may put where a secret was ("[REDACTED:<rule-id>:<hmac>]").
constexpr std::size_t kMaxReplacement = 256;

}  // namespace

Payload makePayload(std::size_t bytes, bool with_secrets) {
  Payload p;
  p.text.reserve(bytes);
  Rng rng(0x6d6370676174656ull);  // "mcpgate"
  if (!with_secrets || bytes < kMinSecretsPayload) {
    appendFiller(p.text, bytes, rng, false, false);
    return p;
  }
  const std::size_t count = std::max<std::size_t>(1, bytes / kSecretSlot);
  const std::size_t slot = bytes / count;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string secret = makeSecret(i, rng);
    const std::size_t at = slot * i + slot / 2 - secret.size() / 2;
    const std::size_t filler_start = p.text.size();
    appendFiller(p.text, at - filler_start, rng, i > 0, true);
    p.fillers.push_back({filler_start, at - filler_start});
    p.secrets.push_back({at, secret.size()});
    p.text += secret;
  }
  const std::size_t filler_start = p.text.size();
  appendFiller(p.text, bytes - filler_start, rng, true, false);
  p.fillers.push_back({filler_start, bytes - filler_start});
  return p;
}

EchoCheck checkEcho(const Payload& payload, std::string_view text) {
  if (text == payload.text) return EchoCheck::kExact;
  if (payload.secrets.empty()) return EchoCheck::kMismatch;
  const std::string_view first = payload.at(payload.fillers.front());
  if (!text.starts_with(first)) return EchoCheck::kMismatch;
  std::size_t pos = first.size();
  bool leaked = false;
  for (std::size_t i = 1; i < payload.fillers.size(); ++i) {
    const std::string_view filler = payload.at(payload.fillers[i]);
    // The filler runs are long and start with a space the replacement lacks,
    // so the first match in this window is the real one.
    const std::string_view window = text.substr(pos, kMaxReplacement + filler.size());
    const std::size_t found = window.find(filler);
    if (found == std::string_view::npos) return EchoCheck::kMismatch;
    const std::string_view gap = window.substr(0, found);
    if (gap.find(payload.at(payload.secrets[i - 1])) != std::string_view::npos) leaked = true;
    pos += found + filler.size();
  }
  if (pos != text.size()) return EchoCheck::kMismatch;
  return leaked ? EchoCheck::kSecretLeaked : EchoCheck::kRedacted;
}

}  // namespace mcpgate::bench
