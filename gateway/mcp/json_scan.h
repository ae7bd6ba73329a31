#pragma once

// A small scanner over raw JSON text: it finds object members and skips values
// without building a DOM, so a 1 MiB string costs one memchr pass and no copy.
// It rejects truncated and unbalanced text (what a broken pipe or a cut HTTP
// body produces) but is not a validator: it accepts, for example, a malformed
// number or a control character inside a string. The gateway uses it only on
// text it has parsed once already (to forward a message's bytes with one
// member changed); the benchmark tools on what they receive.

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgate::gateway::jsonscan {

inline constexpr std::size_t kBad = std::string_view::npos;
// Deeper nesting than this is refused rather than tracked (the gateway's own
// limit, limits.max_json_depth, is lower by default).
inline constexpr int kMaxDepth = 256;

[[nodiscard]] inline std::size_t skipWs(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// s[i] is the opening quote; returns the index after the closing quote, or kBad.
[[nodiscard]] inline std::size_t skipString(std::string_view s, std::size_t i) {
  const char* base = s.data();
  std::size_t j = i + 1;
  while (j < s.size()) {
    const void* q = std::memchr(base + j, '"', s.size() - j);
    if (q == nullptr) return kBad;
    const std::size_t k = static_cast<std::size_t>(static_cast<const char*>(q) - base);
    // The quote closes the string unless an odd run of backslashes escapes it.
    std::size_t b = k;
    while (b > i + 1 && base[b - 1] == '\\') --b;
    if ((k - b) % 2 == 0) return k + 1;
    j = k + 1;
  }
  return kBad;
}

[[nodiscard]] inline bool isDelimiter(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Skips whitespace and one value starting at or after s[i]; returns the index
// after it, or kBad.
[[nodiscard]] inline std::size_t skipValue(std::string_view s, std::size_t i) {
  i = skipWs(s, i);
  if (i >= s.size()) return kBad;
  const char first = s[i];
  if (first == '"') return skipString(s, i);
  if (first == '{' || first == '[') {
    char closers[kMaxDepth];
    int depth = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (c == '"') {
        i = skipString(s, i);
        if (i == kBad) return kBad;
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth == kMaxDepth) return kBad;
        closers[depth++] = c == '{' ? '}' : ']';
      } else if (c == '}' || c == ']') {
        if (depth == 0 || closers[--depth] != c) return kBad;
        if (depth == 0) return i + 1;
      }
      ++i;
    }
    return kBad;
  }
  if (first != '-' && (first < '0' || first > '9') && first != 't' && first != 'f' &&
      first != 'n') {
    return kBad;
  }
  std::size_t j = i;
  while (j < s.size() && !isDelimiter(s[j])) ++j;
  return j;
}

// Calls f(key, value) for each member of the object starting at or after s[i]:
// key is the raw text between the quotes (escapes kept), value the raw text of
// the value. f returns false to stop early. Returns the index after the
// object (or where it stopped), or kBad if the object is malformed.
template <class F>
[[nodiscard]] std::size_t forEachMember(std::string_view s, std::size_t i, F&& f) {
  i = skipWs(s, i);
  if (i >= s.size() || s[i] != '{') return kBad;
  i = skipWs(s, i + 1);
  if (i < s.size() && s[i] == '}') return i + 1;
  for (;;) {
    if (i >= s.size() || s[i] != '"') return kBad;
    const std::size_t key_end = skipString(s, i);
    if (key_end == kBad) return kBad;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    i = skipWs(s, key_end);
    if (i >= s.size() || s[i] != ':') return kBad;
    const std::size_t value_start = skipWs(s, i + 1);
    const std::size_t value_end = skipValue(s, value_start);
    if (value_end == kBad) return kBad;
    if (!f(key, s.substr(value_start, value_end - value_start))) return value_end;
    i = skipWs(s, value_end);
    if (i >= s.size()) return kBad;
    if (s[i] == '}') return i + 1;
    if (s[i] != ',') return kBad;
    i = skipWs(s, i + 1);
  }
}

// Where a JSON-RPC message's text holds its id and its result or error: what
// the gateway needs to forward a response with another id or one member added,
// found without skipping the result (the bulk of a response) when the id
// comes before it, as every common writer puts it. Offsets into the text;
// kBad for what is absent.
struct Envelope {
  std::size_t id_from = kBad;  // the id's raw value: [id_from, id_to)
  std::size_t id_to = kBad;
  std::size_t result = kBad;  // where the result's value starts
  std::size_t error = kBad;   // where the error's value starts
};

// The top-level members of `s` up to the id and the first result or error;
// nullopt when the text is no well-formed object as far as it was read.
[[nodiscard]] inline std::optional<Envelope> envelopeOf(std::string_view s) {
  Envelope found;
  std::size_t i = skipWs(s, 0);
  if (i >= s.size() || s[i] != '{') return std::nullopt;
  i = skipWs(s, i + 1);
  if (i < s.size() && s[i] == '}') return found;
  for (;;) {
    if (i >= s.size() || s[i] != '"') return std::nullopt;
    const std::size_t key_end = skipString(s, i);
    if (key_end == kBad) return std::nullopt;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    i = skipWs(s, key_end);
    if (i >= s.size() || s[i] != ':') return std::nullopt;
    const std::size_t value_start = skipWs(s, i + 1);
    const bool body = key == "result" || key == "error";
    if (body) {
      (key == "result" ? found.result : found.error) = value_start;
      if (found.id_from != kBad) return found;
    }
    const std::size_t value_end = skipValue(s, value_start);
    if (value_end == kBad) return std::nullopt;
    if (key == "id") {
      found.id_from = value_start;
      found.id_to = value_end;
      if (found.result != kBad || found.error != kBad) return found;
    }
    i = skipWs(s, value_end);
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '}') return found;
    if (s[i] != ',') return std::nullopt;
    i = skipWs(s, i + 1);
  }
}

// `text` with the bytes [from, to) replaced by `with`, and `insert` put in
// at `at` (npos: nowhere), which must not lie inside (from, to): the two
// edits of a forwarded message (a new id, one member added) in one copy.
[[nodiscard]] inline std::string spliced(std::string_view text, std::size_t from, std::size_t to,
                                         std::string_view with, std::size_t at = kBad,
                                         std::string_view insert = {}) {
  std::string out;
  out.reserve(text.size() + with.size() + insert.size());
  if (at < from) {
    out.append(text.substr(0, at)).append(insert).append(text.substr(at, from - at));
  } else {
    out.append(text.substr(0, from));
  }
  out.append(with);
  if (at != kBad && at >= to) {
    out.append(text.substr(to, at - to)).append(insert).append(text.substr(at));
  } else {
    out.append(text.substr(to));
  }
  return out;
}

// The raw value of member `key` of the object `obj`, if present.
[[nodiscard]] inline std::optional<std::string_view> member(std::string_view obj,
                                                            std::string_view key) {
  std::optional<std::string_view> found;
  const std::size_t end = forEachMember(obj, 0, [&](std::string_view k, std::string_view v) {
    if (k != key) return true;
    found = v;
    return false;
  });
  if (end == kBad) return std::nullopt;
  return found;
}

// The text between the quotes of a raw JSON string value (escapes kept).
[[nodiscard]] inline std::optional<std::string_view> stringContent(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  return raw.substr(1, raw.size() - 2);
}

// The raw first element of the array `arr`, if it has one.
[[nodiscard]] inline std::optional<std::string_view> firstElement(std::string_view arr) {
  std::size_t i = skipWs(arr, 0);
  if (i >= arr.size() || arr[i] != '[') return std::nullopt;
  i = skipWs(arr, i + 1);
  if (i >= arr.size() || arr[i] == ']') return std::nullopt;
  const std::size_t end = skipValue(arr, i);
  if (end == kBad) return std::nullopt;
  return arr.substr(i, end - i);
}

}  // namespace mcpgate::gateway::jsonscan
