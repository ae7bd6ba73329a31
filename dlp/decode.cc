#include "dlp/decode.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>

#include "dlp/decode_support.h"

namespace mcpgate::dlp {
namespace {

using detail::hexValue;
using detail::pushUtf8;

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

// A gzip member (1f 8b, deflate) or a zlib stream (a deflate header whose check bits hold).
bool isCompressed(std::string_view b) {
  if (b.size() < 10) return false;
  const auto b0 = static_cast<unsigned char>(b[0]), b1 = static_cast<unsigned char>(b[1]);
  if (b0 == 0x1f && b1 == 0x8b && static_cast<unsigned char>(b[2]) == 8) return true;
  return (b0 & 0x0f) == 8 && (b0 >> 4) <= 7 && ((b0 << 8) | b1) % 31 == 0;
}

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
    case Encoding::kConcatenated:
      return "concatenated";
    case Encoding::kReversed:
      return "reversed";
    case Encoding::kRot13:
      return "rot13";
    case Encoding::kBroken:
      return "line-broken";
    case Encoding::kBrokenAssigned:
      return "line-broken-value";
    case Encoding::kReversedUrl:
      return "reversed-url";
    case Encoding::kBrokenUrl:
      return "line-broken-url";
    case Encoding::kQuotedPrintable:
      return "quoted-printable";
    case Encoding::kGzip:
      return "gzip";
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

std::vector<Decoded> decodeAll(std::string_view text, DecodeBudget& budget,
                               const TokenPrefixes* prefixes) {
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
    if (run.pos == nullptr && prefixes != nullptr && !prefixes->empty()) {
      // A token written backwards or in ROT13 is a run of these characters too.
      for (const auto& [enc, turn] : {std::pair{Encoding::kReversed, &decodeReversedToken},
                                      std::pair{Encoding::kRot13, &decodeRot13Token}}) {
        if (auto m = turn(run.chars, *prefixes)) {
          if (!fits(m->text.size())) break;
          budget.bytes -= m->text.size();
          for (auto& b : m->src_begin) b += static_cast<std::uint32_t>(start);
          for (auto& e : m->src_end) e += static_cast<std::uint32_t>(start);
          take(enc, std::move(m));
        }
      }
      if (budget.exhausted) break;
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
      // Its bytes (tls_raw) may be a gzip or zlib stream: inflated within the budget.
      if (isCompressed(tls_raw)) {
        bool over = false;
        auto inflated = inflateStream(tls_raw, budget.bytes, over);
        if (over) {
          budget.exhausted = true;
          break;
        }
        if (inflated) {
          budget.bytes -= inflated->size();
          const std::pair<std::size_t, std::size_t> whole(run.at(0), run.end);
          take(Encoding::kGzip, scannable(*inflated, [&](std::size_t) { return whole; }));
        }
      }
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
  whole(Encoding::kQuotedPrintable, '=', decodeQuotedPrintable);
  whole(Encoding::kEscape, '\\', decodeEscapes);
  whole(Encoding::kHtml, '&', decodeHtmlEntities);
  // Letter-spaced runs have no marker byte; decodeSpaced() is one cheap pass over the text.
  if (!budget.exhausted && text.size() >= kMinSpacedChars * 2 - 1) {
    if (auto m = decodeSpaced(text); m && fits(m->text.size())) {
      budget.bytes -= m->text.size();
      take(Encoding::kSpaced, std::move(m));
    }
  }
  // Tokens and credential values broken across lines: looked at only from line breaks, tokens
  // only past a token prefix, values only after a name that says it holds a credential.
  const bool has_break = std::memchr(text.data(), '\n', text.size()) != nullptr;
  if (!budget.exhausted && has_break) {
    auto joins = decodeBroken(text, prefixes);
    for (auto [enc, m] : {std::pair{Encoding::kBroken, &joins.tokens},
                          std::pair{Encoding::kBrokenAssigned, &joins.values}}) {
      if (*m && fits((*m)->text.size())) {
        budget.bytes -= (*m)->text.size();
        take(enc, std::move(**m));
      }
    }
  }
  // URLs broken across lines: only in a text with a line break (decodeBrokenUrls starts from
  // each ":/").
  if (!budget.exhausted && has_break) {
    if (auto m = decodeBrokenUrls(text); m && fits(m->text.size())) {
      budget.bytes -= m->text.size();
      take(Encoding::kBrokenUrl, std::move(m));
    }
  }
  // URLs written backwards: found from their "//:", which forward text hardly ever holds
  // (one SIMD pass, decodeReversedUrls), in a text long enough to hold "s//:u@h" and a ':'.
  if (!budget.exhausted && text.size() >= kMinReversedUrl &&
      std::memchr(text.data(), ':', text.size()) != nullptr) {
    if (auto m = decodeReversedUrls(text); m && fits(m->text.size())) {
      budget.bytes -= m->text.size();
      take(Encoding::kReversedUrl, std::move(m));
    }
  }
  // Joined literals: found from the quotes, so one cheap pass over a text that has two.
  if (!budget.exhausted) {
    if (auto m = decodeConcatenated(text); m && fits(m->text.size())) {
      budget.bytes -= m->text.size();
      take(Encoding::kConcatenated, std::move(m));
    }
  }
  return out;
}

std::optional<std::string> inflateStream(std::string_view compressed, std::size_t limit,
                                         bool& over_limit) {
  over_limit = false;
  z_stream z{};
  // 15 + 32: a zlib or a gzip header, detected.
  if (inflateInit2(&z, 15 + 32) != Z_OK) return std::nullopt;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), UINT_MAX));
  std::string out;
  int rc = Z_OK;
  std::array<char, 16384> chunk{};
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = chunk.size() - z.avail_out;
    if (out.size() + got > limit) {  // a bomb, or just more than may be decoded: unscanned
      over_limit = true;
      inflateEnd(&z);
      return std::nullopt;
    }
    out.append(chunk.data(), got);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // cut short: keep what came out
  }
  inflateEnd(&z);
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace mcpgate::dlp
