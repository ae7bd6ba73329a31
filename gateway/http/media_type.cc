#include "gateway/http/media_type.h"

#include <array>
#include <optional>
#include <string>

namespace mcpgate::gateway {
namespace {

// RFC 9110 tchar, as a table: every request's Accept and Content-Type are read with it.
constexpr auto kTokenChars = [] {
  std::array<bool, 256> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[c] = table[c - 'a' + 'A'] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool isTokenChar(char c) { return kTokenChars[static_cast<unsigned char>(c)]; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsCaseless(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

void skipSpace(std::string_view text, std::size_t& at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
}

std::string_view token(std::string_view text, std::size_t& at) {
  const std::size_t start = at;
  while (at < text.size() && isTokenChar(text[at])) ++at;
  return text.substr(start, at - start);
}

struct MediaRange {
  std::string_view type;
  std::string_view subtype;
  bool q_zero = false;
};

// One media type with its parameters, from `at` up to a ',' (Accept) or the end.
std::optional<MediaRange> parseOne(std::string_view text, std::size_t& at) {
  MediaRange range;
  skipSpace(text, at);
  range.type = token(text, at);
  if (range.type.empty() || at >= text.size() || text[at] != '/') return std::nullopt;
  ++at;
  range.subtype = token(text, at);
  if (range.subtype.empty()) return std::nullopt;
  for (;;) {
    skipSpace(text, at);
    if (at >= text.size() || text[at] == ',') return range;
    if (text[at] != ';') return std::nullopt;
    ++at;
    skipSpace(text, at);
    const std::string_view name = token(text, at);
    if (name.empty() || at >= text.size() || text[at] != '=') return std::nullopt;
    ++at;
    std::string value;
    if (at < text.size() && text[at] == '"') {
      ++at;
      for (;; ++at) {
        if (at >= text.size()) return std::nullopt;
        if (text[at] == '"') break;
        if (text[at] == '\\') {
          if (++at >= text.size()) return std::nullopt;
        }
        value += text[at];
      }
      ++at;
    } else {
      value = token(text, at);
      if (value.empty()) return std::nullopt;
    }
    if (equalsCaseless(name, "q")) {
      range.q_zero = value.find_first_not_of("0.") == std::string::npos;
    }
  }
}

}  // namespace

bool isMediaType(std::string_view header, std::string_view type) {
  std::size_t at = 0;
  const auto parsed = parseOne(header, at);
  if (!parsed || at != header.size()) return false;
  const std::size_t slash = type.find('/');
  return equalsCaseless(parsed->type, type.substr(0, slash)) &&
         equalsCaseless(parsed->subtype, type.substr(slash + 1));
}

bool acceptsMediaType(std::string_view header, std::string_view type, bool wildcards) {
  std::size_t at = 0;
  skipSpace(header, at);
  if (at == header.size()) return wildcards;
  const std::size_t slash = type.find('/');
  const std::string_view main = type.substr(0, slash);
  const std::string_view sub = type.substr(slash + 1);
  bool accepted = false;
  while (at < header.size()) {
    skipSpace(header, at);
    if (at < header.size() && header[at] == ',') {  // empty list elements are allowed
      ++at;
      continue;
    }
    if (at == header.size()) break;
    const auto range = parseOne(header, at);
    if (!range) return false;
    const bool exact = equalsCaseless(range->type, main) && equalsCaseless(range->subtype, sub);
    const bool matches =
        exact || (wildcards && ((range->type == "*" && range->subtype == "*") ||
                                (equalsCaseless(range->type, main) && range->subtype == "*")));
    // The most specific range decides; a q=0 for the exact type refuses it.
    if (exact && range->q_zero) return false;
    if (matches && !range->q_zero) accepted = true;
    if (at < header.size()) ++at;  // the ','
  }
  return accepted;
}

}  // namespace mcpgate::gateway
