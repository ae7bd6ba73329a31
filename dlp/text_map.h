#pragma once

// Derived text (normalized or decoded) together with where each of its bytes came from, so a
// finding in the derived text can be mapped back onto the characters the user actually sent.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgate::dlp {

struct MappedText {
  std::string text;
  // For byte i of `text`: the source bytes [src_begin[i], src_end[i]) that produced it.
  std::vector<std::uint32_t> src_begin;
  std::vector<std::uint32_t> src_end;

  void reserve(std::size_t n) {
    text.reserve(n);
    src_begin.reserve(n);
    src_end.reserve(n);
  }
  void push(char c, std::size_t begin, std::size_t end) {
    text.push_back(c);
    src_begin.push_back(static_cast<std::uint32_t>(begin));
    src_end.push_back(static_cast<std::uint32_t>(end));
  }
  // Appends another derived text of the same source, maps and all.
  void append(const MappedText& other) {
    text += other.text;
    src_begin.insert(src_begin.end(), other.src_begin.begin(), other.src_begin.end());
    src_end.insert(src_end.end(), other.src_end.begin(), other.src_end.end());
  }
  // The source span covering derived bytes [start, end); end > start. A map runs forwards, or
  // backwards for a reversed token (decodeReversedToken), so the span is taken from both ends.
  [[nodiscard]] std::pair<std::size_t, std::size_t> toSource(std::size_t start,
                                                             std::size_t end) const {
    return {std::min(src_begin[start], src_begin[end - 1]),
            std::max(src_end[start], src_end[end - 1])};
  }
};

}  // namespace mcpgate::dlp
