#pragma once

// Byte-level pieces that the JSON reader (json_reader.cc) and writer
// (json_writer.cc) share: finding the end of a plain run of string bytes
// eight at a time, and checking one UTF-8 sequence.

#include <cstddef>
#include <cstdint>
#include <cstring>

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

// The end of the run of plain string bytes (printable ASCII but '"' and
// '\\') that starts at p: eight bytes at a time, then one at a time.
inline const char* plainRunEnd(const char* p, const char* end) {
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
