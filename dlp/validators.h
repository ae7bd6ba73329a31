#pragma once

// Checks that run on a candidate after the pattern matched: they turn "looks like" into "is".

#include <string_view>

namespace mcpgate::dlp {

// Luhn checksum over the digits of `s`; spaces and dashes are ignored, anything else fails.
// Needs 12 to 19 digits, the lengths payment card numbers have.
[[nodiscard]] bool luhnValid(std::string_view s);
// ISO 13616 IBAN: country code, two check digits, mod-97 of the rearranged number equals 1.
// Spaces are ignored; letters may be either case.
[[nodiscard]] bool ibanValid(std::string_view s);
// Shannon entropy of the byte distribution of `s`, in bits per character.
[[nodiscard]] double shannonEntropy(std::string_view s);

}  // namespace mcpgate::dlp
