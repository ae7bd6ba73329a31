#pragma once

// Finds encoded substrings (base64, hex, percent- and backslash-escapes) and decodes them, so
// a secret wrapped in an encoding is scanned as the text it carries.
//
// Fails closed: what decodes to something other than text is not dropped. UTF-16 is transcoded,
// other binary keeps its printable runs (a secret inside it is one), NULs do not make text
// binary; base64 wrapped at line breaks (MIME, PEM, "\n" in a JSON string) is joined before
// decoding; and a run that does not fit the budget is reported, never silently skipped.

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

// Printable runs shorter than this are not kept from binary decoded data: no secret is shorter,
// and random bytes rarely hold one this long.
inline constexpr std::size_t kMinPrintableRun = 8;

// Decodes `encoded` (a whole run); nullopt if it is not valid or decodes to nothing scannable
// (no text, no printable run). Offsets in the result are relative to `encoded`.
[[nodiscard]] std::optional<MappedText> decodeBase64(std::string_view encoded);
[[nodiscard]] std::optional<MappedText> decodeHex(std::string_view encoded);
// Percent-decoding of a whole text; nullopt if there is no %XX in it.
[[nodiscard]] std::optional<MappedText> decodePercent(std::string_view text);
// \xHH, \uXXXX (and surrogate pairs), \n, \t, \r, \", \\, \/ in a whole text; nullopt if there is
// no escape in it.
[[nodiscard]] std::optional<MappedText> decodeEscapes(std::string_view text);

// How much decoding one scan may still do.
struct DecodeBudget {
  std::size_t bytes = 0;  // decoded bytes still allowed; reduced by what decodeAll() returns
  // A decodable run (or a whole-text decoding) did not fit: the text is not fully scanned and
  // the caller must treat it as unscannable.
  bool exhausted = false;
};

// Every decodable substring of `text`, base64 lines joined, within `budget`. Offsets in each map
// are relative to `text`.
[[nodiscard]] std::vector<Decoded> decodeAll(std::string_view text, DecodeBudget& budget);

}  // namespace mcpgate::dlp
