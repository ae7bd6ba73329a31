#include "dlp/normalize.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

namespace mcpgate::dlp {
namespace {

// Letters from Cyrillic and Greek that render like Latin ones in common fonts. Sorted by code
// point for binary search.
constexpr std::pair<char32_t, char> kHomoglyphs[] = {
    {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'},
    {0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'},
    {0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03B1, 'a'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'},
    {0x03BF, 'o'}, {0x03C1, 'p'}, {0x03C4, 't'}, {0x03C5, 'u'}, {0x03C7, 'x'}, {0x0405, 'S'},
    {0x0406, 'I'}, {0x0408, 'J'}, {0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'},
    {0x041C, 'M'}, {0x041D, 'H'}, {0x041E, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'},
    {0x0423, 'Y'}, {0x0425, 'X'}, {0x0430, 'a'}, {0x0432, 'b'}, {0x0435, 'e'}, {0x043A, 'k'},
    {0x043C, 'm'}, {0x043D, 'h'}, {0x043E, 'o'}, {0x0440, 'p'}, {0x0441, 'c'}, {0x0442, 't'},
    {0x0443, 'y'}, {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'}, {0x04AE, 'Y'},
    {0x04BB, 'h'}, {0x04C0, 'I'}, {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'}, {0x2010, '-'},
    {0x2212, '-'},
};

bool isInvisible(char32_t c) {
  return c == 0x00AD || c == 0x034F || c == 0x061C || c == 0x115F || c == 0x1160 || c == 0x17B4 ||
         c == 0x17B5 || (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0x3164 ||
         (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 || c == 0xE007F ||
         (c >= 0xE0100 && c <= 0xE01EF);
}

// The ASCII character `c` stands for, or 0 if it is not folded.
char fold(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) return static_cast<char>(c - 0xFEE0);     // full-width forms
  if (c >= 0xE0020 && c <= 0xE007E) return static_cast<char>(c - 0xE0000);  // tag characters
  if (c == 0x00A0 || c == 0x3000 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F) {
    return ' ';
  }
  if (c >= 0x1D400 && c <= 0x1D6A3) {  // mathematical alphanumerics: 13 alphabets of A-Z a-z
    const auto k = (c - 0x1D400) % 52;
    return static_cast<char>(k < 26 ? 'A' + k : 'a' + (k - 26));
  }
  if (c >= 0x1D7CE && c <= 0x1D7FF) return static_cast<char>('0' + (c - 0x1D7CE) % 10);
  if (c >= 0x2018 && c <= 0x201B) return '\'';
  if (c >= 0x201C && c <= 0x201F) return '"';
  const auto it = std::ranges::lower_bound(kHomoglyphs, c, {}, &std::pair<char32_t, char>::first);
  if (it != std::end(kHomoglyphs) && it->first == c) return it->second;
  return 0;
}

// Decodes one UTF-8 sequence at text[i]; returns its length, or 0 if it is not valid.
std::size_t decodeUtf8(std::string_view text, std::size_t i, char32_t& out) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  std::size_t len = 0;
  char32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  // Reject overlong forms, surrogates and values above U+10FFFF.
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  out = cp;
  return len;
}

}  // namespace

bool hasNonAscii(std::string_view text) {
  std::size_t i = 0;
  // 64 bytes per test: this runs on every scanned value, almost always ASCII, and the OR of eight
  // words vectorizes.
  for (; i + 64 <= text.size(); i += 64) {
    std::uint64_t w[8];
    std::memcpy(w, text.data() + i, 64);
    std::uint64_t acc = 0;
    for (const std::uint64_t x : w) acc |= x;
    if (acc & 0x8080808080808080ULL) return true;
  }
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if (w & 0x8080808080808080ULL) return true;
  }
  for (; i < text.size(); ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0x80) return true;
  }
  return false;
}

MappedText normalize(std::string_view text) {
  MappedText out;
  out.text.reserve(text.size());
  out.src_begin.reserve(text.size());
  out.src_end.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out.push(static_cast<char>(c), i, i + 1);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t len = decodeUtf8(text, i, cp);
    if (len == 0) {
      out.push(static_cast<char>(c), i, i + 1);
      ++i;
      continue;
    }
    if (isInvisible(cp)) {
      // Dropped. A finding that spans it still covers it, since spans map by their end bytes.
    } else if (const char a = fold(cp); a != 0) {
      out.push(a, i, i + len);
    } else {
      for (std::size_t k = 0; k < len; ++k) out.push(text[i + k], i, i + len);
    }
    i += len;
  }
  return out;
}

}  // namespace mcpgate::dlp
