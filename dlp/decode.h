#pragma once

// Finds encoded substrings (base64, hex, percent- and backslash-escapes) and decodes them, so
// a secret wrapped in an encoding is scanned as the text it carries.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "dlp/text_map.h"

namespace mcpgate::dlp {

enum class Encoding { kBase64, kHex, kPercent, kEscape };

[[nodiscard]] std::string_view toString(Encoding e);

struct Decoded {
  Encoding encoding;
  // Decoded text; its map points into the input that was given to decodeAll().
  MappedText mapped;
};

// Shortest encoded run considered: shorter runs hide nothing worth finding and are everywhere
// in code (identifiers, short hex ids).
inline constexpr std::size_t kMinBase64Run = 16;
inline constexpr std::size_t kMinHexRun = 16;

// Decodes `encoded` (a whole run); nullopt if it is not valid or does not decode to text.
// Offsets in the result are relative to `encoded`.
[[nodiscard]] std::optional<MappedText> decodeBase64(std::string_view encoded);
[[nodiscard]] std::optional<MappedText> decodeHex(std::string_view encoded);
// Percent-decoding of a whole text; nullopt if there is no %XX in it.
[[nodiscard]] std::optional<MappedText> decodePercent(std::string_view text);
// \xHH, \uXXXX (and surrogate pairs), \n, \t, \r, \", \\, \/ in a whole text; nullopt if there is
// no escape in it.
[[nodiscard]] std::optional<MappedText> decodeEscapes(std::string_view text);

// Every decodable substring of `text`, at most `budget` decoded bytes in total (the budget is
// reduced by what is returned). Offsets in each map are relative to `text`.
[[nodiscard]] std::vector<Decoded> decodeAll(std::string_view text, std::size_t& budget);

}  // namespace mcpgate::dlp
