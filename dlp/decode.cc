#include "dlp/decode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace mcpgate::dlp {
namespace {

constexpr std::array<std::int8_t, 256> makeTable(bool url) {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 26; ++i) {
    t['A' + i] = static_cast<std::int8_t>(i);
    t['a' + i] = static_cast<std::int8_t>(26 + i);
  }
  for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<std::int8_t>(52 + i);
  t[url ? '-' : '+'] = 62;
  t[url ? '_' : '/'] = 63;
  return t;
}
constexpr auto kStd = makeTable(false);
constexpr auto kUrl = makeTable(true);

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Character classes for finding runs, one table lookup per byte.
enum : std::uint8_t { kB64 = 1, kHexDigit = 2, kB64Std = 4, kB64Url = 8 };
constexpr std::array<std::uint8_t, 256> makeClasses() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) t[c] |= kB64;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
      t[c] |= kHexDigit;
    }
  }
  t['+'] = t['/'] = kB64 | kB64Std;
  t['-'] = t['_'] = kB64 | kB64Url;
  return t;
}
constexpr auto kClasses = makeClasses();
// Fewest run characters that can reach kMinBase64Run with two '=' of padding.
constexpr std::size_t kMinRunChars = std::min(kMinBase64Run - 2, kMinHexRun);

// Decoded bytes are worth scanning only if they read as text; binary (images, hashes, random
// ids that happen to be valid base64) is left alone. Text may be UTF-8, but random bytes almost
// never form valid UTF-8 sequences, so those count against it.
bool looksLikeText(std::string_view s) {
  if (s.empty()) return false;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0) return false;
      if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F) ++bad;
      ++i;
      continue;
    }
    const std::size_t len = c >= 0xF0 && c <= 0xF4   ? 4
                            : c >= 0xE0              ? 3
                            : c >= 0xC2 && c <= 0xDF ? 2
                                                     : 0;
    std::size_t k = 1;
    while (len != 0 && k < len && i + k < s.size() &&
           (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80) {
      ++k;
    }
    // A sequence cut off by the end of `s` is not held against it: the early check looks at a
    // prefix, which may end inside a character.
    if (len == 0 || (k < len && i + k < s.size())) {
      ++bad;
      ++i;
    } else {
      i += len;
    }
  }
  return bad * 20 <= s.size();
}

}  // namespace

std::string_view toString(Encoding e) {
  switch (e) {
    case Encoding::kBase64:
      return "base64";
    case Encoding::kHex:
      return "hex";
    case Encoding::kPercent:
      return "percent";
    case Encoding::kEscape:
      return "escape";
  }
  return "?";
}

namespace {

// `url`: the run uses the URL-safe alphabet (its caller has checked it does not mix both).
std::optional<MappedText> decodeBase64Run(std::string_view in, bool url) {
  // Padding belongs to the last quartet: a finding there must cover it too.
  const std::size_t encoded_size = in.size();
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  const auto& table = url ? kUrl : kStd;
  if (in.size() % 4 == 1) in.remove_suffix(1);  // a dangling sextet carries no whole byte
  // Reject early on the first 12 characters, before allocating: most base64-looking runs in tool
  // traffic are identifiers or binary payloads, and three groups are enough to tell.
  if (in.size() > 11) {
    std::array<char, 9> head{};
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < 12; ++i) {
      const auto v = table[static_cast<unsigned char>(in[i])];
      if (v < 0) return std::nullopt;
      acc = (acc << 6) | static_cast<std::uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        head[n++] = static_cast<char>((acc >> bits) & 0xFF);
      }
    }
    if (!looksLikeText(std::string_view(head.data(), n))) return std::nullopt;
  }
  MappedText out;
  out.reserve(in.size() * 3 / 4);
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto v = table[static_cast<unsigned char>(in[i])];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const std::size_t group = i / 4 * 4;
      const std::size_t group_end = group + 4 >= in.size() ? encoded_size : group + 4;
      out.push(static_cast<char>((acc >> bits) & 0xFF), group, group_end);
    }
  }
  if (!looksLikeText(out.text)) return std::nullopt;
  return out;
}

}  // namespace

std::optional<MappedText> decodeBase64(std::string_view in) {
  bool std_chars = false, url_chars = false;
  for (const char c : in) {
    std_chars |= (c == '+' || c == '/');
    url_chars |= (c == '-' || c == '_');
  }
  if (std_chars && url_chars) return std::nullopt;
  return decodeBase64Run(in, url_chars);
}

std::optional<MappedText> decodeHex(std::string_view in) {
  if (in.size() % 2 == 1) in.remove_suffix(1);
  // Hashes and ids are most hex runs: reject on the first 8 bytes, before allocating.
  if (in.size() >= 16) {
    std::array<char, 8> head{};
    for (std::size_t i = 0; i < 16; i += 2) {
      const int hi = hexValue(in[i]), lo = hexValue(in[i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      head[i / 2] = static_cast<char>(hi * 16 + lo);
    }
    if (!looksLikeText(std::string_view(head.data(), head.size()))) return std::nullopt;
  }
  MappedText out;
  out.reserve(in.size() / 2);
  for (std::size_t i = 0; i + 1 < in.size(); i += 2) {
    const int hi = hexValue(in[i]), lo = hexValue(in[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push(static_cast<char>(hi * 16 + lo), i, i + 2);
  }
  if (!looksLikeText(out.text)) return std::nullopt;
  return out;
}

std::optional<MappedText> decodePercent(std::string_view text) {
  bool any = false;
  MappedText out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 &&
        hexValue(text[i + 2]) >= 0) {
      out.push(static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2])), i, i + 3);
      i += 3;
      any = true;
    } else {
      out.push(text[i], i, i + 1);
      ++i;
    }
  }
  if (!any) return std::nullopt;
  return out;
}

std::optional<MappedText> decodeEscapes(std::string_view text) {
  bool any = false;
  MappedText out;
  const auto pushUtf8 = [&out](char32_t cp, std::size_t b, std::size_t e) {
    if (cp < 0x80) {
      out.push(static_cast<char>(cp), b, e);
    } else if (cp < 0x800) {
      out.push(static_cast<char>(0xC0 | (cp >> 6)), b, e);
      out.push(static_cast<char>(0x80 | (cp & 0x3F)), b, e);
    } else if (cp < 0x10000) {
      out.push(static_cast<char>(0xE0 | (cp >> 12)), b, e);
      out.push(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), b, e);
      out.push(static_cast<char>(0x80 | (cp & 0x3F)), b, e);
    } else {
      out.push(static_cast<char>(0xF0 | (cp >> 18)), b, e);
      out.push(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)), b, e);
      out.push(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), b, e);
      out.push(static_cast<char>(0x80 | (cp & 0x3F)), b, e);
    }
  };
  const auto hexRun = [&text](std::size_t at, std::size_t n) -> int {
    if (at + n > text.size()) return -1;
    int v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const int h = hexValue(text[at + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  };
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out.push(text[i], i, i + 1);
      ++i;
      continue;
    }
    const char e = text[i + 1];
    if (e == 'x') {
      if (const int v = hexRun(i + 2, 2); v >= 0) {
        out.push(static_cast<char>(v), i, i + 4);
        i += 4;
        any = true;
        continue;
      }
    } else if (e == 'u') {
      if (int v = hexRun(i + 2, 4); v >= 0) {
        std::size_t end = i + 6;
        char32_t cp = static_cast<char32_t>(v);
        if (cp >= 0xD800 && cp <= 0xDBFF && end + 1 < text.size() && text[end] == '\\' &&
            text[end + 1] == 'u') {
          if (const int lo = hexRun(end + 2, 4); lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<char32_t>(lo) - 0xDC00);
            end += 6;
          }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
        pushUtf8(cp, i, end);
        i = end;
        any = true;
        continue;
      }
    } else {
      char c = 0;
      switch (e) {
        case 'n':
          c = '\n';
          break;
        case 't':
          c = '\t';
          break;
        case 'r':
          c = '\r';
          break;
        case '"':
        case '\\':
        case '/':
        case '\'':
          c = e;
          break;
        default:
          break;
      }
      if (c != 0) {
        out.push(c, i, i + 2);
        i += 2;
        any = true;
        continue;
      }
    }
    out.push(text[i], i, i + 1);
    ++i;
  }
  if (!any) return std::nullopt;
  return out;
}

std::vector<Decoded> decodeAll(std::string_view text, std::size_t& budget) {
  std::vector<Decoded> out;
  const auto take = [&](Encoding enc, std::optional<MappedText> m, std::size_t offset) {
    if (!m || m->text.size() > budget) return;
    budget -= m->text.size();
    if (offset != 0) {
      for (auto& b : m->src_begin) b += static_cast<std::uint32_t>(offset);
      for (auto& e : m->src_end) e += static_cast<std::uint32_t>(offset);
    }
    out.push_back(Decoded{enc, std::move(*m)});
  };

  const auto isB64 = [&text](std::size_t at) {
    return (kClasses[static_cast<unsigned char>(text[at])] & kB64) != 0;
  };
  for (std::size_t i = 0; i < text.size() && budget > 0;) {
    if (!isB64(i)) {
      ++i;
      continue;
    }
    // i starts a run. Most runs are short words; a non-run byte among the next kMinRunChars rules
    // out every start up to it, so look from the far end and jump past it (Boyer-Moore style).
    if (i + kMinRunChars > text.size()) break;
    std::size_t gap = i + kMinRunChars;
    while (gap > i && isB64(gap - 1)) --gap;
    if (gap != i) {
      i = gap;
      continue;
    }
    const std::size_t start = i;
    std::uint8_t seen = kHexDigit;
    bool hex = true;
    while (i < text.size()) {
      const auto cls = kClasses[static_cast<unsigned char>(text[i])];
      if (!(cls & kB64)) break;
      hex = hex && (cls & kHexDigit);
      seen |= cls;
      ++i;
    }
    std::size_t end = i;
    while (end < text.size() && end - i < 2 && text[end] == '=') ++end;
    const auto run = text.substr(start, end - start);
    const bool std_chars = (seen & kB64Std) != 0, url_chars = (seen & kB64Url) != 0;
    if (hex && run.size() >= kMinHexRun) {
      take(Encoding::kHex, decodeHex(run), start);
    } else if (run.size() >= kMinBase64Run && !(std_chars && url_chars)) {
      // The run's alphabet is known here: no second pass over it to find out.
      take(Encoding::kBase64, decodeBase64Run(run, url_chars), start);
    }
    i = end;
  }
  if (budget > 0 && std::memchr(text.data(), '%', text.size()) != nullptr) {
    take(Encoding::kPercent, decodePercent(text), 0);
  }
  if (budget > 0 && std::memchr(text.data(), '\\', text.size()) != nullptr) {
    take(Encoding::kEscape, decodeEscapes(text), 0);
  }
  return out;
}

}  // namespace mcpgate::dlp
