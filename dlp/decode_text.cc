// The decoders of text inside text: HTML character references, letter-spaced runs, percent
// encoding, quoted-printable, string escapes and joined literals (decode.h). Apart from decode.cc
// (the byte encodings: base64, hex, base32, and decodeAll) and decode_token.cc (tokens by prefix).

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "dlp/decode.h"
#include "dlp/decode_support.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcpgate::dlp {

using detail::hexValue;
using detail::pushUtf8;

namespace {

// The HTML character reference at text[at] ('&'): its code point and length; nullopt if none.
std::optional<std::pair<char32_t, std::size_t>> htmlReference(std::string_view text,
                                                              std::size_t at) {
  static constexpr std::pair<std::string_view, char32_t> kNamed[] = {
      {"amp", '&'},    {"lt", '<'},    {"gt", '>'},     {"quot", '"'},   {"apos", '\''},
      {"sol", '/'},    {"colon", ':'}, {"lowbar", '_'}, {"period", '.'}, {"comma", ','},
      {"equals", '='}, {"plus", '+'},  {"hyphen", '-'}, {"dash", '-'},   {"nbsp", ' '},
      {"num", '#'},    {"excl", '!'},  {"quest", '?'},  {"commat", '@'}, {"dollar", '$'},
      {"percnt", '%'}, {"ast", '*'},   {"lpar", '('},   {"rpar", ')'},   {"semi", ';'},
      {"lsqb", '['},   {"rsqb", ']'},  {"lbrace", '{'}, {"rbrace", '}'}, {"bsol", '\\'},
      {"Hat", '^'},    {"grave", '`'}, {"verbar", '|'}, {"tilde", '~'},  {"newline", '\n'},
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
  // The text is decoded only when some row of adjacent references is this long, or when one
  // reference spells a call's or a scheme's punctuation (`alert&#40;1&#41;`, `javascript&colon;`):
  // escapers write those characters as they are, so a reference for them is evasion.
  constexpr std::size_t kMinRow = 4;
  const auto evasive = [](char32_t c) { return c == '(' || c == ')' || c == ':' || c == '`'; };
  std::size_t row = 0;
  std::size_t row_end = 0;  // where the last reference ended
  bool any = false;
  for (std::size_t i = text.find('&'); i != std::string_view::npos && !any;
       i = text.find('&', i + 1)) {
    if (const auto ref = htmlReference(text, i)) {
      row = (row != 0 && row_end == i) ? row + 1 : 1;
      any = row >= kMinRow || evasive(ref->first);
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
  const auto cls = [&text](std::size_t at) {
    return kSpaced[static_cast<unsigned char>(text[at])];
  };
  const auto isChar = [&](std::size_t at) { return (cls(at) & kSpacedChar) != 0; };
  const auto isSep = [&](std::size_t at) { return (cls(at) & kSpacedSep) != 0; };
  std::optional<MappedText> out;
  // Inside a run no two neighbouring bytes are both non-separators, no four are all blanks
  // (spaces and tabs only come from a separator, which is one to three bytes, and a run's
  // characters are never blank), and every byte is a separator or a character (no line break,
  // no control or non-ASCII byte). A run spans at least 2 * kMinSpacedChars - 1 bytes, so
  // it holds a whole 16-byte block and the byte after it. Blocks that break one of these rules
  // (in code: word pairs, indentation, line breaks) are skipped whole; the exact search starts a
  // block before the first block that breaks none (the run's start lies after the previous block).
  static_assert(2 * kMinSpacedChars - 1 >= 2 * 16 - 1);
#if defined(__SSE2__)
  const __m128i kc[] = {_mm_set1_epi8(' '), _mm_set1_epi8('\t'), _mm_set1_epi8('.'),
                        _mm_set1_epi8(','), _mm_set1_epi8('-'),  _mm_set1_epi8('|'),
                        _mm_set1_epi8(':'), _mm_set1_epi8('_'),  _mm_set1_epi8('!'),
                        _mm_set1_epi8(0x7F)};
#endif
  const auto blocked = [&](std::size_t b) {
    const std::uint8_t last = cls(b + 16);
    if (last == 0) return true;
    unsigned seps = (last & kSpacedSep) != 0 ? 1U << 16 : 0U;
    unsigned other = 0;
    unsigned blanks = (text[b + 16] == ' ' || text[b + 16] == '\t') ? 1U << 16 : 0U;
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + b));
    const auto eq = [&v](const __m128i& c) { return _mm_cmpeq_epi8(v, c); };
    const __m128i blank = _mm_or_si128(eq(kc[0]), eq(kc[1]));
    const __m128i sep = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(blank, eq(kc[2])), _mm_or_si128(eq(kc[3]), eq(kc[4]))),
        _mm_or_si128(_mm_or_si128(eq(kc[5]), eq(kc[6])), eq(kc[7])));
    // Below '!' (signed: non-ASCII bytes too) or DEL, and no separator: neither class.
    const __m128i low = _mm_or_si128(_mm_cmplt_epi8(v, kc[8]), eq(kc[9]));
    seps |= static_cast<unsigned>(_mm_movemask_epi8(sep));
    blanks |= static_cast<unsigned>(_mm_movemask_epi8(blank));
    other = static_cast<unsigned>(_mm_movemask_epi8(_mm_andnot_si128(sep, low)));
#else
    for (std::size_t k = 0; k < 16; ++k) {
      seps |= (isSep(b + k) ? 1U : 0U) << k;
      other |= (cls(b + k) == 0 ? 1U : 0U) << k;
      blanks |= (text[b + k] == ' ' || text[b + k] == '\t' ? 1U : 0U) << k;
    }
#endif
    const unsigned four_blanks = blanks & (blanks >> 1) & (blanks >> 2) & (blanks >> 3);
    return other != 0 || (~seps & ~(seps >> 1) & 0xFFFFU) != 0 || four_blanks != 0;
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
    // A run starts at a single character (not the end of a longer word) before a separator; a
    // quote or a bracket may come before it ("g h p _ ..." in a string literal).
    if (!isSep(i + 1) || !isChar(i) || (i > 0 && detail::isAlnum(text[i - 1]))) {
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
      // A longer word; a closing quote or bracket after the last character ends the run.
      if (!sep_next && after < text.size() && detail::isAlnum(text[after])) break;
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

namespace {

bool isQuote(char c) { return c == '"' || c == '\'' || c == '`'; }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The first quote (", ' or `) at or after `i`, or npos: sixteen bytes at a time, since most of a
// text has none.
std::size_t nextQuote(std::string_view text, std::size_t i) {
#if defined(__SSE2__)
  const __m128i dq = _mm_set1_epi8('"'), sq = _mm_set1_epi8('\''), bq = _mm_set1_epi8('`');
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, dq), _mm_cmpeq_epi8(v, sq)),
                     _mm_cmpeq_epi8(v, bq));
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0) {
      return i + static_cast<std::size_t>(__builtin_ctz(mask));
    }
  }
#endif
  for (; i < text.size(); ++i) {
    if (isQuote(text[i])) return i;
  }
  return std::string_view::npos;
}

// The end of the string literal whose opening quote is at `at` (after its closing quote), or
// npos when it does not close on its line; `stop` is then where the search ended (the line
// break, or the text's end). No later quote of the same kind before `stop` closes either: its
// search would run in step with this one from the byte after it.
std::size_t literalEnd(std::string_view text, std::size_t at, std::size_t& stop) {
  const char quote = text[at];
  std::size_t i = at + 1;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      ++i;  // the escaped character, whatever it is
      if (i < text.size() && text[i] == '\n') break;
    } else if (c == quote) {
      return i + 1;
    } else if (c == '\n') {
      break;
    }
  }
  stop = std::min(i, text.size());
  return std::string_view::npos;
}

// Whether a byte may follow a literal that another is joined to: a blank, a quote, or the first
// byte of an operator.
bool mayJoin(char c) {
  return isBlank(c) || isQuote(c) || c == '+' || c == '.' || c == '&' || c == '|' || c == '~';
}

// Where the next literal of a chain starts after the literal that ended at `at`: past blanks, at
// most one concatenation operator and blanks again; npos when the chain ends.
std::size_t nextLiteral(std::string_view text, std::size_t at) {
  std::size_t i = at;
  while (i < text.size() && isBlank(text[i])) ++i;
  if (i < text.size() && !isQuote(text[i])) {
    const std::string_view rest = text.substr(i);
    std::size_t op = 0;
    if (rest.starts_with("||") || rest.starts_with("..")) {
      op = 2;
    } else if (rest[0] == '+' || rest[0] == '.' || rest[0] == '&' || rest[0] == '~') {
      op = 1;
    }
    if (op == 0) return std::string_view::npos;
    i += op;
    while (i < text.size() && isBlank(text[i])) ++i;
  }
  return i < text.size() && isQuote(text[i]) ? i : std::string_view::npos;
}

// Longest literal looked back over from a junction for its opening quote.
constexpr std::size_t kMaxLiteralBack = 4096;

// Whether an odd run of backslashes escapes the byte at `k`.
bool escaped(std::string_view text, std::size_t k) {
  std::size_t slashes = 0;
  while (k > slashes && text[k - 1 - slashes] == '\\') ++slashes;
  return slashes % 2 == 1;
}

// The opening quote of the literal that the quote at `q` would close: the nearest earlier quote
// of its kind on its line that no odd run of backslashes escapes; npos if there is none within
// kMaxLiteralBack bytes.
std::size_t openingBefore(std::string_view text, std::size_t q) {
  const std::size_t floor = q > kMaxLiteralBack ? q - kMaxLiteralBack : 0;
  for (std::size_t k = q; k > floor;) {
    --k;
    if (text[k] == '\n') return std::string_view::npos;
    if (text[k] == text[q] && !escaped(text, k)) return k;
  }
  return std::string_view::npos;
}

}  // namespace

// Found from its junctions: a quote followed by what may join it to another literal (blanks, an
// operator, a quote). Most texts have none, and then only their quotes are looked at; from a
// junction, the literal before it is found backwards on its line and the chain followed forward.
std::optional<MappedText> decodeConcatenated(std::string_view text) {
  std::optional<MappedText> out;
  MappedText chain;
  // Per quote kind (", ', `): quotes before this offset open no literal (see literalEnd), so a
  // line of unclosed quotes is searched once, not once per quote.
  std::array<std::size_t, 3> dead{};
  const auto kind = [](char quote) { return quote == '"' ? 0 : quote == '\'' ? 1 : 2; };
  const auto closing = [&](std::size_t at) {
    std::size_t& until = dead[static_cast<std::size_t>(kind(text[at]))];
    if (at < until) return std::string_view::npos;
    std::size_t stop = 0;
    const std::size_t end = literalEnd(text, at, stop);
    if (end == std::string_view::npos) until = stop;
    return end;
  };
  std::size_t i = 0;
  for (std::size_t q; (q = nextQuote(text, i)) != std::string_view::npos;) {
    i = q + 1;
    // What a quote is followed by in JSON and most code (`:`, `,`, `)`, a letter) joins nothing.
    if (i < text.size() && !mayJoin(text[i])) continue;
    const std::size_t next = nextLiteral(text, q + 1);
    if (next == std::string_view::npos || escaped(text, q)) continue;
    const std::size_t open = openingBefore(text, q);
    if (open == std::string_view::npos) continue;
    chain.text.clear();
    chain.src_begin.clear();
    chain.src_end.clear();
    for (std::size_t k = open + 1; k < q; ++k) chain.push(text[k], k, k + 1);
    std::size_t literals = 1;
    for (std::size_t at = next; at != std::string_view::npos;) {
      const std::size_t end = closing(at);
      if (end == std::string_view::npos) break;
      ++literals;
      for (std::size_t k = at + 1; k + 1 < end; ++k) chain.push(text[k], k, k + 1);
      i = end;
      at = nextLiteral(text, end);
    }
    if (literals < 2 || chain.text.size() < kMinConcatenatedChars) continue;
    if (!out) {
      out.emplace();
    } else {
      out->push('\n', chain.src_begin.front(), chain.src_begin.front() + 1);
    }
    out->append(chain);
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

namespace {

// The length of the quoted-printable soft line break at `i` ("=\r\n" or "=\n"), or 0.
std::size_t softBreakAt(std::string_view text, std::size_t i) {
  if (text[i] != '=') return 0;
  if (i + 1 < text.size() && text[i + 1] == '\n') return 2;
  if (i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') return 3;
  return 0;
}

}  // namespace

std::optional<MappedText> decodeQuotedPrintable(std::string_view text) {
  // Only a text with a soft line break is taken for quoted-printable: "=41" alone is as likely a
  // URL's query or an assignment.
  bool soft = false;
  for (std::size_t i = text.find('='); i != std::string_view::npos; i = text.find('=', i + 1)) {
    if (softBreakAt(text, i) != 0) {
      soft = true;
      break;
    }
  }
  if (!soft) return std::nullopt;
  MappedText out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = softBreakAt(text, i); n != 0) {
      i += n;  // the line goes on: nothing is written
    } else if (text[i] == '=' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 &&
               hexValue(text[i + 2]) >= 0) {
      out.push(static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2])), i, i + 3);
      i += 3;
    } else {
      out.push(text[i], i, i + 1);
      ++i;
    }
  }
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

}  // namespace mcpgate::dlp
