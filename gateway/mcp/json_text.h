#pragma once

// Byte-level pieces that the JSON reader (json_reader.cc) and writer
// (json_writer.cc) share: finding the end of a plain run of string bytes
// many at a time, and checking one UTF-8 sequence.

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace mcpgate::gateway::jsonrpc::detail {

// True if any of the eight bytes is '"', '\\', a control character or not ASCII.
inline bool special8(std::uint64_t v) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = v ^ (kOnes * '"');
  const std::uint64_t slash = v ^ (kOnes * '\\');
  const std::uint64_t control = (v - kOnes * 0x20) & ~v;
  return (((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | control | v) & kHigh;
}

// The UTF-8 sequence at s (Unicode table 3-7): its length when valid, else
// minus the number of bytes nlohmann's decoder takes before it rejects (at
// least one): those become one U+FFFD, and the byte that broke the sequence
// is read again as the start of the next.
inline long utf8Sequence(const unsigned char* s, std::size_t left) {
  const unsigned char c = s[0];
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  for (std::size_t i = 1; i < n; ++i) {
    if (i >= left) return -static_cast<long>(left);  // cut short by the end of the string
    const bool ok = i == 1 ? s[i] >= lo && s[i] <= hi : s[i] >= 0x80 && s[i] <= 0xBF;
    if (!ok) return -static_cast<long>(i);
  }
  return static_cast<long>(n);
}

#if defined(__SSE2__)
// The first byte of the 16 at p that ends a plain run (see plainRunEnd), or 16.
inline int stopIn16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // v <= 0x1F (unsigned) where min(v, 0x1F) == v; non-ASCII bytes have their high bit set.
  const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
  const __m128i stop = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      control);
  const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(stop) | _mm_movemask_epi8(v));
  return mask != 0 ? __builtin_ctz(mask) : 16;
}

// The same test 32 bytes at a time, for CPUs with AVX2 (chosen at run time).
__attribute__((target("avx2"))) inline const char* plainRunEndAvx2(const char* p, const char* end) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i slash = _mm256_set1_epi8('\\');
  const __m256i below_space = _mm256_set1_epi8(0x1F);
  while (end - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i control = _mm256_cmpeq_epi8(_mm256_min_epu8(v, below_space), v);
    const __m256i stop = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, slash)), control);
    const unsigned mask = static_cast<unsigned>(_mm256_movemask_epi8(stop)) |
                          static_cast<unsigned>(_mm256_movemask_epi8(v));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 32;
  }
  return p;
}

inline const bool kAvx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
#endif

// The end of the run of plain string bytes (printable ASCII but '"' and
// '\\') that starts at p: 32 or 16 bytes at a time with AVX2 or SSE2 (every
// x86-64 has SSE2; a tool result is mostly such runs, so this loop is most of
// what parsing and writing one costs), else eight at a time; then one at a
// time.
inline const char* plainRunEnd(const char* p, const char* end) {
#if defined(__SSE2__)
  // Keys and most values are short: one test of 16 finds their end.
  if (end - p >= 16) {
    const int stop = stopIn16(p);
    if (stop < 16) return p + stop;
    p += 16;
  }
  if (kAvx2) {
    p = plainRunEndAvx2(p, end);
    if (end - p >= 32) return p;  // it stopped at a byte that ends the run
  }
  while (end - p >= 16) {
    const int stop = stopIn16(p);
    if (stop < 16) return p + stop;
    p += 16;
  }
#endif
  while (end - p >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    if (special8(v)) break;
    p += 8;
  }
  while (p < end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++p;
  }
  return p;
}

}  // namespace mcpgate::gateway::jsonrpc::detail
