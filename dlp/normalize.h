#pragma once

// Undoes the cheap tricks that hide a secret or an instruction from a byte-level scanner:
// invisible format characters, full-width forms, look-alike letters from other scripts.

#include <string_view>

#include "dlp/text_map.h"

namespace mcpgate::dlp {

// True if `text` has a byte >= 0x80; pure ASCII text never changes under normalize().
[[nodiscard]] bool hasNonAscii(std::string_view text);

// Removes zero-width and other invisible format characters (including variation selectors),
// folds full-width forms, Unicode spaces, mathematical alphanumerics and common Cyrillic/Greek
// homoglyphs to ASCII, and turns Unicode tag characters (U+E0020..E007E, used to smuggle hidden
// text) into the ASCII they encode. Invalid UTF-8 bytes pass through unchanged.
[[nodiscard]] MappedText normalize(std::string_view text);

}  // namespace mcpgate::dlp
