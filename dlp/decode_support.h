#pragma once

// Helpers the decoders of decode.cc and decode_text.cc share.

#include <cstddef>

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
