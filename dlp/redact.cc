#include "dlp/redact.h"

#include <openssl/rand.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "common/digest.h"
#include "common/encoding.h"

namespace mcpgate::dlp {
namespace {

const std::string& processKey() {
  static const std::string key = [] {
    std::string k(32, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(k.data()), static_cast<int>(k.size())) != 1) {
      k = "mcpgate-fallback-key";
    }
    return k;
  }();
  return key;
}

std::string hmacHex(std::string_view key, std::string_view data, std::size_t hex_digits) {
  std::string hex = common::toHex(common::hmacSha256(key, data));
  hex.resize(std::min(hex.size(), hex_digits));
  return hex;
}

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Widens [start, end) to whole UTF-8 characters so no replacement leaves half a character.
void toCharBoundaries(std::string_view s, std::size_t& start, std::size_t& end) {
  while (start > 0 && start < s.size() && isContinuation(s[start])) --start;
  while (end < s.size() && isContinuation(s[end])) ++end;
}

}  // namespace

std::string replacement(const Rule& rule, std::string_view secret, const RedactOptions& options) {
  switch (rule.redact) {
    case RedactStyle::kReplace:
      return "[REDACTED:" + rule.id + "]";
    case RedactStyle::kMask: {
      // Keep the last N characters (whole UTF-8 characters), star the rest; never keep it all.
      std::size_t keep = std::min(rule.mask_keep, secret.size() / 2);
      std::size_t cut = secret.size() - keep;
      while (cut < secret.size() && isContinuation(secret[cut])) ++cut;
      std::size_t stars = 0;
      for (std::size_t i = 0; i < cut; ++i) stars += isContinuation(secret[i]) ? 0 : 1;
      return std::string(stars, '*') + std::string(secret.substr(cut));
    }
    case RedactStyle::kHash: {
      const std::string& key = options.hmac_key.empty() ? processKey() : options.hmac_key;
      return "[REDACTED:" + rule.id + ":" + hmacHex(key, secret, 16) + "]";
    }
  }
  return "[REDACTED]";
}

std::string maskedPreview(std::string_view secret) {
  if (secret.size() < 8) return std::string(secret.size(), '*');
  const std::size_t show = std::min<std::size_t>(4, secret.size() / 6);
  std::string out(secret.substr(0, show));
  out += std::string(std::min<std::size_t>(secret.size() - 2 * show, 16), '*');
  out += secret.substr(secret.size() - show);
  // The ends may cut a UTF-8 character; replace any partial byte so the preview is valid text.
  for (auto& c : out) {
    if (static_cast<unsigned char>(c) >= 0x80) c = '*';
  }
  return out;
}

std::string redactText(std::string_view text, std::span<const Finding> findings,
                       const RedactOptions& options) {
  struct Span {
    std::size_t start, end;
    const Rule* rule;
  };
  std::vector<Span> spans;
  for (const auto& f : findings) {
    std::size_t s = std::min(f.start, text.size()), e = std::min(f.end, text.size());
    if (s >= e) continue;
    toCharBoundaries(text, s, e);
    spans.push_back({s, e, f.rule});
  }
  std::ranges::sort(spans, [](const Span& a, const Span& b) {
    return std::tie(a.start, a.end) < std::tie(b.start, b.end);
  });
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (std::size_t i = 0; i < spans.size();) {
    // Overlapping spans (two rules on one secret) become one replacement, named by the first.
    std::size_t s = spans[i].start, e = spans[i].end;
    const Rule* rule = spans[i].rule;
    for (++i; i < spans.size() && spans[i].start < e; ++i) e = std::max(e, spans[i].end);
    out.append(text.substr(pos, s - pos));
    out += replacement(*rule, text.substr(s, e - s), options);
    pos = e;
  }
  out.append(text.substr(pos));
  return out;
}

std::expected<std::size_t, Error> redact(nlohmann::json& message, const Findings& findings,
                                         const RedactOptions& options) {
  // Group by target string; keys are renamed after values, since renaming moves the member.
  std::map<std::pair<std::string, bool>, std::vector<Finding>> groups;
  for (const auto& f : findings.items) {
    if (f.action != Action::kRedact && f.action != Action::kBlock) continue;
    groups[{f.pointer, f.in_key}].push_back(f);
  }
  std::size_t changed = 0;
  try {
    for (const auto& [target, list] : groups) {
      const auto& [pointer, in_key] = target;
      if (!in_key) {
        nlohmann::json& v = message.at(nlohmann::json::json_pointer(pointer));
        if (v.is_number_integer()) {
          // Scanned as its text (see JsonWalker): the redacted value becomes a string.
          v = redactText(v.dump(), list, options);
        } else if (v.is_string()) {
          v = redactText(v.get_ref<const std::string&>(), list, options);
        } else {
          return std::unexpected(Error{"redact: " + pointer + " is not a string"});
        }
        ++changed;
      }
    }
    // Deepest keys first, so renaming a key does not invalidate the pointers below it.
    for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
      const auto& [pointer, in_key] = it->first;
      if (!in_key) continue;
      const nlohmann::json::json_pointer ptr(pointer);
      nlohmann::json& parent = message.at(ptr.parent_pointer());
      const std::string key = ptr.back();
      if (!parent.is_object() || !parent.contains(key)) {
        return std::unexpected(Error{"redact: " + pointer + " is not an object member"});
      }
      std::string renamed = redactText(key, it->second, options);
      // Two keys redacting to one name must not overwrite each other's values.
      while (parent.contains(renamed)) renamed += "_";
      nlohmann::json value = std::move(parent[key]);
      parent.erase(key);
      parent[renamed] = std::move(value);
      ++changed;
    }
  } catch (const nlohmann::json::exception& e) {
    return std::unexpected(Error{std::string("redact: ") + e.what()});
  }
  return changed;
}

}  // namespace mcpgate::dlp
