#include "dlp/decode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
enum : std::uint8_t { kB64 = 1, kHexDigit = 2, kB64Std = 4, kB64Url = 8, kB32 = 16 };
constexpr std::array<std::uint8_t, 256> makeClasses() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) t[c] |= kB64;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
      t[c] |= kHexDigit;
    }
    if ((c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7')) t[c] |= kB32;
  }
  t['+'] = t['/'] = kB64 | kB64Std;
  t['-'] = t['_'] = kB64 | kB64Url;
  return t;
}
constexpr auto kClasses = makeClasses();
// Fewest run characters that can reach kMinBase64Run with two '=' of padding.
constexpr std::size_t kMinRunChars = std::min(kMinBase64Run - 2, kMinHexRun);

// Decoded bytes read as text if few of them are control bytes or broken UTF-8: random bytes
// almost never form valid UTF-8 sequences, so those count against it. A NUL is one bad byte like
// any other control byte, not a verdict: text with a NUL in it is still scanned.
bool looksLikeText(std::string_view s) {
  if (s.empty()) return false;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
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
    if (len == 0 || (k < len && i + k < s.size())) {
      ++bad;
      ++i;
    } else {
      i += len;
    }
  }
  return bad * 20 <= s.size();
}

bool printable(unsigned char c) {
  return (c >= 0x20 && c < 0x7F) || c == '\n' || c == '\r' || c == '\t';
}

// Derived bytes and, for byte k, the source span it came from (map(k) -> {begin, end}).
template <class Map>
MappedText mapAll(std::string_view bytes, const Map& map) {
  MappedText out;
  out.reserve(bytes.size());
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    const auto [b, e] = map(k);
    out.push(bytes[k], b, e);
  }
  return out;
}

// The printable runs of binary data, one per line: a secret hidden among binary bytes is one of
// them. nullopt if there is none.
template <class Map>
std::optional<MappedText> printableRuns(std::string_view bytes, const Map& map) {
  MappedText out;
  for (std::size_t i = 0; i < bytes.size();) {
    if (!printable(static_cast<unsigned char>(bytes[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < bytes.size() && printable(static_cast<unsigned char>(bytes[j]))) ++j;
    if (j - i >= kMinPrintableRun) {
      if (!out.text.empty()) {
        const auto [b, e] = map(i);
        out.push('\n', b, e);
      }
      for (std::size_t k = i; k < j; ++k) {
        const auto [b, e] = map(k);
        out.push(bytes[k], b, e);
      }
    }
    i = j;
  }
  if (out.text.empty()) return std::nullopt;
  return out;
}

void pushUtf8(MappedText& out, char32_t cp, std::size_t b, std::size_t e) {
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
}

// Bytes that are UTF-16 (every other byte NUL for ASCII text: Windows tools, PowerShell's
// -EncodedCommand), transcoded to UTF-8; nullopt if they do not look like UTF-16.
template <class Map>
std::optional<MappedText> fromUtf16(std::string_view bytes, const Map& map) {
  if (bytes.size() < 4) return std::nullopt;
  std::size_t zero_even = 0, zero_odd = 0;
  for (std::size_t k = 0; k + 1 < bytes.size(); k += 2) {
    zero_even += bytes[k] == 0;
    zero_odd += bytes[k + 1] == 0;
  }
  const std::size_t units = bytes.size() / 2;
  const bool le = zero_odd * 2 >= units && zero_odd > zero_even;
  const bool be = zero_even * 2 >= units && zero_even > zero_odd;
  if (!le && !be) return std::nullopt;
  const auto unit = [&](std::size_t u) {
    const auto lo = static_cast<unsigned char>(bytes[2 * u + (le ? 0 : 1)]);
    const auto hi = static_cast<unsigned char>(bytes[2 * u + (le ? 1 : 0)]);
    return static_cast<char32_t>(hi << 8 | lo);
  };
  MappedText out;
  out.reserve(units);
  for (std::size_t u = 0; u < units;) {
    char32_t cp = unit(u);
    std::size_t last = u;
    if (cp >= 0xD800 && cp <= 0xDBFF && u + 1 < units && unit(u + 1) >= 0xDC00 &&
        unit(u + 1) <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (unit(u + 1) - 0xDC00);
      last = u + 1;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    pushUtf8(out, cp, map(2 * u).first, map(2 * last + 1).second);
    u = last + 1;
  }
  return out;
}

// What of decoded bytes gets scanned: text as it is, UTF-16 as UTF-8, and of anything else its
// printable runs. nullopt only when nothing printable is in it.
template <class Map>
std::optional<MappedText> scannable(std::string_view bytes, const Map& map) {
  if (looksLikeText(bytes)) return mapAll(bytes, map);
  if (auto wide = fromUtf16(bytes, map)) {
    if (looksLikeText(wide->text)) return wide;
    return printableRuns(wide->text, [&](std::size_t k) {
      return std::pair<std::size_t, std::size_t>(wide->src_begin[k], wide->src_end[k]);
    });
  }
  return printableRuns(bytes, map);
}

// The alphabet characters of one encoded run (padding stripped) and where each came from: a slice
// of the text, or, for a run joined across line breaks, a copy with each character's offset.
struct RunChars {
  std::string_view chars;
  const std::vector<std::uint32_t>* pos = nullptr;  // offset of chars[i]; null: base + i
  std::size_t base = 0;
  std::size_t end = 0;  // end of the run in the source, padding included
  [[nodiscard]] std::size_t at(std::size_t i) const { return pos ? (*pos)[i] : base + i; }
};

// Scratch for decoded bytes, reused so the many short runs that turn out to be nothing cost no
// allocation.
thread_local std::string tls_raw;

// `url`: the run uses the URL-safe alphabet (its caller has checked it does not mix both).
std::optional<MappedText> decodeBase64Run(RunChars run, bool url) {
  if (run.chars.size() % 4 == 1) run.chars.remove_suffix(1);  // a dangling sextet: no whole byte
  const auto& table = url ? kUrl : kStd;
  std::string& raw = tls_raw;
  raw.clear();
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : run.chars) {
    const auto v = table[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      raw.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  const std::size_t n = run.chars.size();
  // Byte k comes from quartet k/3; the last quartet's span takes the padding after it too.
  return scannable(raw, [&run, n](std::size_t k) {
    const std::size_t group = k / 3 * 4;
    const std::size_t end = group + 4 >= n ? run.end : run.at(group + 3) + 1;
    return std::pair<std::size_t, std::size_t>(run.at(group), end);
  });
}

std::optional<MappedText> decodeHexRun(RunChars run) {
  if (run.chars.size() % 2 == 1) run.chars.remove_suffix(1);
  std::string& raw = tls_raw;
  raw.clear();
  for (std::size_t i = 0; i + 1 < run.chars.size(); i += 2) {
    const int hi = hexValue(run.chars[i]), lo = hexValue(run.chars[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    raw.push_back(static_cast<char>(hi * 16 + lo));
  }
  return scannable(raw, [&run](std::size_t k) {
    return std::pair<std::size_t, std::size_t>(run.at(2 * k), run.at(2 * k + 1) + 1);
  });
}

int base32Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= '2' && c <= '7') return c - '2' + 26;
  return -1;
}

std::optional<MappedText> decodeBase32Run(RunChars run) {
  std::string& raw = tls_raw;
  raw.clear();
  std::uint64_t acc = 0;
  int bits = 0;
  for (const char c : run.chars) {
    const int v = base32Value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 5) | static_cast<std::uint64_t>(v);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      raw.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  // Byte k holds bits [8k, 8k+8): characters 8k/5 to (8k+7)/5; the last takes the padding too.
  const std::size_t n = run.chars.size();
  const auto map = [&run, n](std::size_t k) {
    const std::size_t first = k * 8 / 5;
    const std::size_t last = std::min(n - 1, (k * 8 + 7) / 5);
    const std::size_t end = last + 1 >= n ? run.end : run.at(last) + 1;
    return std::pair<std::size_t, std::size_t>(run.at(first), end);
  };
  // Only text: a run of capitals and digits that decodes to binary is a constant, not a secret.
  if (!looksLikeText(raw)) return std::nullopt;
  return mapAll(raw, map);
}

// Length of the line break at `at` that wrapped base64 may carry: CR LF, LF, CR, or the JSON
// escapes \n and \r\n of a string that was encoded twice. 0 if there is none.
std::size_t lineBreakAt(std::string_view text, std::size_t at) {
  const std::string_view rest = text.substr(at);
  for (const std::string_view brk : {"\r\n", "\n", "\r", "\\r\\n", "\\n"}) {
    if (rest.starts_with(brk)) return brk.size();
  }
  return 0;
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
    case Encoding::kBase32:
      return "base32";
    case Encoding::kHtml:
      return "html";
    case Encoding::kSpaced:
      return "spaced";
  }
  return "?";
}

std::optional<MappedText> decodeBase64(std::string_view in) {
  bool std_chars = false, url_chars = false;
  for (const char c : in) {
    std_chars |= (c == '+' || c == '/');
    url_chars |= (c == '-' || c == '_');
  }
  if (std_chars && url_chars) return std::nullopt;
  std::string_view chars = in;
  while (!chars.empty() && chars.back() == '=') chars.remove_suffix(1);
  return decodeBase64Run(RunChars{chars, nullptr, 0, in.size()}, url_chars);
}

std::optional<MappedText> decodeHex(std::string_view in) {
  return decodeHexRun(RunChars{in, nullptr, 0, in.size()});
}

std::optional<MappedText> decodeBase32(std::string_view in) {
  std::size_t n = in.size();
  while (n > 0 && in[n - 1] == '=') --n;
  return decodeBase32Run(RunChars{in.substr(0, n), nullptr, 0, in.size()});
}

namespace {

// The HTML character reference at text[at] ('&'): its code point and length; nullopt if none.
std::optional<std::pair<char32_t, std::size_t>> htmlReference(std::string_view text,
                                                              std::size_t at) {
  static constexpr std::pair<std::string_view, char32_t> kNamed[] = {
      {"amp", '&'},    {"lt", '<'},     {"gt", '>'},     {"quot", '"'},   {"apos", '\''},
      {"sol", '/'},    {"colon", ':'},  {"lowbar", '_'}, {"period", '.'}, {"comma", ','},
      {"equals", '='}, {"plus", '+'},   {"hyphen", '-'}, {"dash", '-'},   {"nbsp", ' '},
      {"num", '#'},    {"excl", '!'},   {"quest", '?'},  {"commat", '@'}, {"dollar", '$'},
      {"percnt", '%'}, {"ast", '*'},    {"lpar", '('},   {"rpar", ')'},   {"semi", ';'},
      {"lsqb", '['},   {"rsqb", ']'},   {"lbrace", '{'}, {"rbrace", '}'}, {"bsol", '\\'},
      {"Hat", '^'},    {"grave", '`'},  {"verbar", '|'}, {"tilde", '~'},  {"newline", '\n'},
      {"Tab", '\t'}};
  // The longest reference is "&#x10FFFF;": look no further for the ';'.
  const std::string_view window = text.substr(at + 1, 10);
  const std::size_t semi = window.find(';');
  if (semi == std::string_view::npos || semi < 2) return std::nullopt;
  const std::string_view body = window.substr(0, semi);
  if (body[0] != '#') {
    for (const auto& [name, value] : kNamed) {
      if (body == name) return std::pair{value, semi + 2};
    }
    return std::nullopt;
  }
  const bool hex = body[1] == 'x' || body[1] == 'X';
  const std::string_view digits = body.substr(hex ? 2 : 1);
  if (digits.empty() || digits.size() > 7) return std::nullopt;
  char32_t cp = 0;
  for (const char c : digits) {
    const int v = hex ? hexValue(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
    if (v < 0) return std::nullopt;
    cp = cp * (hex ? 16 : 10) + static_cast<char32_t>(v);
  }
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  return std::pair{cp, semi + 2};
}

}  // namespace

std::optional<MappedText> decodeHtmlEntities(std::string_view text) {
  // HTML is full of sporadic references (&amp; &nbsp; &#169;); a hidden value is a row of them.
  // The text is decoded only when some row of adjacent references is this long.
  constexpr std::size_t kMinRow = 4;
  std::size_t row = 0;
  std::size_t row_end = 0;  // where the last reference ended
  bool any = false;
  for (std::size_t i = text.find('&'); i != std::string_view::npos && !any;
       i = text.find('&', i + 1)) {
    if (const auto ref = htmlReference(text, i)) {
      row = (row != 0 && row_end == i) ? row + 1 : 1;
      any = row >= kMinRow;
      row_end = i + ref->second;
    }
  }
  if (!any) return std::nullopt;
  MappedText out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '&') {
      if (const auto ref = htmlReference(text, i)) {
        pushUtf8(out, ref->first, i, i + ref->second);
        i += ref->second;
        continue;
      }
    }
    out.push(text[i], i, i + 1);
    ++i;
  }
  return out;
}

// Character classes of letter-spaced runs: separators and the characters they keep apart.
enum : std::uint8_t { kSpacedSep = 1, kSpacedChar = 2 };
constexpr std::array<std::uint8_t, 256> makeSpacedClasses() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0x21; c < 0x7F; ++c) t[c] = kSpacedChar;
  for (const char c : {' ', '.', ',', '-', '|', ':', '_', '\t'}) {
    t[static_cast<unsigned char>(c)] |= kSpacedSep;
  }
  return t;
}
constexpr auto kSpaced = makeSpacedClasses();

std::optional<MappedText> decodeSpaced(std::string_view text) {
  const auto cls = [&text](std::size_t at) { return kSpaced[static_cast<unsigned char>(text[at])]; };
  const auto isChar = [&](std::size_t at) { return (cls(at) & kSpacedChar) != 0; };
  const auto isSep = [&](std::size_t at) { return (cls(at) & kSpacedSep) != 0; };
  std::optional<MappedText> out;
  // Inside a run no two neighbouring bytes are both non-separators, and a run spans at least
  // 2 * kMinSpacedChars - 1 bytes, so it holds a whole 16-byte block and the byte after it with no
  // such pair. Blocks with one are skipped whole; the exact search starts a block before the first
  // block without one (the run's start lies after the previous block's last such pair).
  static_assert(2 * kMinSpacedChars - 1 >= 2 * 16 - 1);
  const auto blocked = [&](std::size_t b) {
    unsigned seps = isSep(b + 16) ? 1U << 16 : 0U;
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + b));
    __m128i m = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
    for (const char c : {'.', ',', '-', '|', ':', '_', '\t'}) {
      m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
    }
    seps |= static_cast<unsigned>(_mm_movemask_epi8(m));
#else
    for (std::size_t k = 0; k < 16; ++k) seps |= (isSep(b + k) ? 1U : 0U) << k;
#endif
    return (~seps & ~(seps >> 1) & 0xFFFFU) != 0;
  };
  std::size_t exact_end = 0;  // the exact search runs up to here
  for (std::size_t i = 0; i + 2 < text.size();) {
    if (i >= exact_end) {
      std::size_t b = i / 16 * 16;
      while (b + 17 <= text.size() && blocked(b)) b += 16;
      if (b + 17 > text.size()) break;  // no whole unblocked block left: no run either
      i = std::max(i, b >= 16 ? b - 16 : 0);
      exact_end = b + 32;
    }
    // A run starts at a single character (not the end of a longer word) before a separator.
    if (!isSep(i + 1) || !isChar(i) || (i > 0 && isChar(i - 1) && !isSep(i - 1))) {
      ++i;
      continue;
    }
    std::size_t sep_len = 1;
    while (sep_len < 3 && i + 1 + sep_len < text.size() && isSep(i + 1 + sep_len)) ++sep_len;
    const std::string_view sep = text.substr(i + 1, sep_len);
    // Each further character of the run: one character, not one of the separator's, followed by
    // exactly the separator or by the end of the run.
    std::size_t count = 1;
    std::size_t last = i;
    for (std::size_t at = i + 1 + sep_len;
         at < text.size() && isChar(at) && sep.find(text[at]) == std::string_view::npos;) {
      const std::size_t after = at + 1;
      const bool sep_next = text.substr(after, sep_len) == sep;
      if (!sep_next && after < text.size() && isChar(after)) break;  // a longer word
      last = at;
      ++count;
      if (!sep_next) break;
      at = after + sep_len;
    }
    if (count < kMinSpacedChars) {
      i += 1 + sep_len;
      continue;
    }
    // Only the joined runs are kept, a line each: the text around them is scanned already.
    if (!out) {
      out.emplace();
    } else {
      out->push('\n', i, i + 1);
    }
    for (std::size_t k = i; k <= last; k += 1 + sep_len) out->push(text[k], k, k + 1);
    i = last + 1;
    exact_end = std::max(exact_end, i);
  }
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
        pushUtf8(out, cp, i, end);
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

std::vector<Decoded> decodeAll(std::string_view text, DecodeBudget& budget) {
  std::vector<Decoded> out;
  // Whether `n` more decoded bytes fit; if not, the text is not fully scanned.
  const auto fits = [&budget](std::size_t n) {
    if (n <= budget.bytes) return true;
    budget.exhausted = true;
    return false;
  };
  const auto take = [&](Encoding enc, std::optional<MappedText> m) {
    if (m) out.push_back(Decoded{enc, std::move(*m)});
  };

  const auto isB64 = [&text](std::size_t at) {
    return (kClasses[static_cast<unsigned char>(text[at])] & kB64) != 0;
  };
  std::string joined;
  std::vector<std::uint32_t> joined_pos;
  for (std::size_t i = 0; i < text.size() && !budget.exhausted;) {
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
    bool b32 = true;  // capitals and 2-7 only
    const auto scanSegment = [&](std::size_t from) {
      std::size_t j = from;
      while (j < text.size()) {
        const auto cls = kClasses[static_cast<unsigned char>(text[j])];
        if (!(cls & kB64)) break;
        hex = hex && (cls & kHexDigit);
        b32 = b32 && (cls & kB32);
        seen |= cls;
        ++j;
      }
      return j;
    };
    i = scanSegment(i);
    // Wrapped base64 (MIME, PEM): lines of one length, a multiple of 4 so that joining them
    // cannot misalign runs that were separate, each break followed by the next line; the last
    // line may be shorter.
    RunChars run{text.substr(start, i - start), nullptr, start, 0};
    const std::size_t line = i - start;
    if (line >= kMinBase64Run && line % 4 == 0) {
      for (std::size_t brk; (brk = lineBreakAt(text, i)) != 0;) {
        const std::size_t next = i + brk;
        std::size_t j = next;
        while (j < text.size() && isB64(j)) ++j;
        if (j == next || j - next > line) break;
        if (run.pos == nullptr) {
          joined.assign(run.chars);
          joined_pos.resize(line);
          for (std::size_t k = 0; k < line; ++k)
            joined_pos[k] = static_cast<std::uint32_t>(start + k);
          run.pos = &joined_pos;
        }
        scanSegment(next);
        joined.append(text.substr(next, j - next));
        for (std::size_t k = next; k < j; ++k) joined_pos.push_back(static_cast<std::uint32_t>(k));
        i = j;
        if (j - next < line) break;
      }
      if (run.pos != nullptr) run.chars = joined;
    }
    std::size_t end = i;
    while (end < text.size() && end - i < 6 && text[end] == '=') ++end;
    // Base64 pads with at most two '='; six is base32's.
    if (end - i > 2 && !b32) end = i + 2;
    run.end = end;
    const std::size_t run_size = run.chars.size() + (end - i);
    const bool std_chars = (seen & kB64Std) != 0, url_chars = (seen & kB64Url) != 0;
    if (b32 && !hex && run.chars.size() >= kMinBase32Run) {
      // Capitals and 2-7 only: base32 first; as base64 it would decode to binary anyway.
      if (!fits(run.chars.size() * 5 / 8)) break;
      budget.bytes -= run.chars.size() * 5 / 8;
      if (auto m = decodeBase32Run(run)) {
        take(Encoding::kBase32, std::move(m));
        i = end;
        continue;
      }
    }
    if (hex && run.chars.size() >= kMinHexRun) {
      if (!fits(run.chars.size() / 2)) break;
      budget.bytes -= run.chars.size() / 2;
      take(Encoding::kHex, decodeHexRun(run));
    } else if (run_size >= kMinBase64Run && !(std_chars && url_chars)) {
      if (!fits(run.chars.size() * 3 / 4)) break;
      budget.bytes -= run.chars.size() * 3 / 4;
      // The run's alphabet is known here: no second pass over it to find out.
      take(Encoding::kBase64, decodeBase64Run(run, url_chars));
    }
    i = end;
  }
  // Whole-text decodings: never longer than the text, which is already in memory.
  const auto whole = [&](Encoding enc, char marker, auto decode) {
    if (budget.exhausted || std::memchr(text.data(), marker, text.size()) == nullptr) return;
    auto m = decode(text);
    if (!m || !fits(m->text.size())) return;
    budget.bytes -= m->text.size();
    take(enc, std::move(m));
  };
  whole(Encoding::kPercent, '%', decodePercent);
  whole(Encoding::kEscape, '\\', decodeEscapes);
  whole(Encoding::kHtml, '&', decodeHtmlEntities);
  // Letter-spaced runs have no marker byte; decodeSpaced() is one cheap pass over the text.
  if (!budget.exhausted && text.size() >= kMinSpacedChars * 2 - 1) {
    if (auto m = decodeSpaced(text); m && fits(m->text.size())) {
      budget.bytes -= m->text.size();
      take(Encoding::kSpaced, std::move(m));
    }
  }
  return out;
}

}  // namespace mcpgate::dlp
