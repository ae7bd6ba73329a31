#pragma once

// Helpers the decoders of decode.cc and decode_text.cc share.

#include <cstddef>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dlp/decode.h"

namespace mcpgate::dlp::detail {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isAlnum(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// A byte of a base64 run (either alphabet): what tokens are made of.
inline bool isRunByte(char c) {
  return isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_';
}

// Where the two bytes `a` then `b` first stand side by side in `text` at or after `from`, or
// npos. Sixteen positions at a time: glibc's memmem walks a needle this short byte by byte, and
// ':' is in every JSON text, so a memchr for it stops all the time.
inline std::size_t findPair(std::string_view text, std::size_t from, char a, char b) {
  std::size_t i = from;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a);
  const __m128i vb = _mm_set1_epi8(b);
  for (; i + 17 <= text.size(); i += 16) {
    const auto* p = reinterpret_cast<const __m128i*>(text.data() + i);
    const __m128i first = _mm_cmpeq_epi8(_mm_loadu_si128(p), va);
    const __m128i second = _mm_cmpeq_epi8(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + 1)), vb);
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(first, second)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  for (; i + 1 < text.size(); ++i) {
    if (text[i] == a && text[i + 1] == b) return i;
  }
  return std::string_view::npos;
}

inline int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends code point `cp` as UTF-8, every byte mapped to the source span [b, e).
inline void pushUtf8(MappedText& out, char32_t cp, std::size_t b, std::size_t e) {
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

}  // namespace mcpgate::dlp::detail
