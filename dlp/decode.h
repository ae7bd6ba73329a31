#pragma once

// Finds encoded substrings (base64, base32, hex, percent- and backslash-escapes, HTML character
// references), letter-spaced runs ("g h p _ a 1 B 2 ...") and string literals joined by
// concatenation ("AKIA" + "Q3EG..."), and decodes them, so a secret wrapped in an encoding or
// split across literals is scanned as the text it carries.
//
// Fails closed: what decodes to something other than text is not dropped. UTF-16 is transcoded,
// other binary keeps its printable runs (a secret inside it is one), NULs do not make text
// binary; base64 wrapped at line breaks (MIME, PEM, "\n" in a JSON string) is joined before
// decoding; and a run that does not fit the budget is reported, never silently skipped.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlp/text_map.h"

namespace mcpgate::dlp {

enum class Encoding {
  kBase64,
  kBase32,
  kHex,
  kPercent,
  kEscape,
  kHtml,
  kSpaced,
  kConcatenated,
  kReversed,
  kRot13,
  kBroken,
  kBrokenAssigned,
  kReversedUrl,
  kBrokenUrl,
  kQuotedPrintable,
  kGzip,
};

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
// Base32 (RFC 4648, upper case) is only tried on runs of its own alphabet this long or longer.
inline constexpr std::size_t kMinBase32Run = 24;
// Fewest single characters, each followed by the same separator, that make a letter-spaced run.
inline constexpr std::size_t kMinSpacedChars = 16;

// Fewest bytes the literals of one concatenation must hold together to be joined.
inline constexpr std::size_t kMinConcatenatedChars = 12;

// Printable runs shorter than this are not kept from binary decoded data: no secret is shorter,
// and random bytes rarely hold one this long.
inline constexpr std::size_t kMinPrintableRun = 8;

// A gzip or zlib stream found base64-encoded (a Helm release secret, a compressed payload) is
// inflated, at most as far as the decode budget allows (past it the text is unscanned, as for any
// run that does not fit); every inflated byte maps to the whole encoded run.
[[nodiscard]] std::optional<std::string> inflateStream(std::string_view compressed,
                                                       std::size_t limit, bool& over_limit);

// Decodes `encoded` (a whole run); nullopt if it is not valid or decodes to nothing scannable
// (no text, no printable run). Offsets in the result are relative to `encoded`.
[[nodiscard]] std::optional<MappedText> decodeBase64(std::string_view encoded);
[[nodiscard]] std::optional<MappedText> decodeHex(std::string_view encoded);
// Percent-decoding of a whole text; nullopt if there is no %XX in it.
[[nodiscard]] std::optional<MappedText> decodePercent(std::string_view text);
// Quoted-printable (RFC 2045, as mail bodies carry it): soft line breaks ("=" at a line's end)
// removed and =XX decoded, in a whole text; nullopt if it has no soft line break (without one,
// "=41" is as likely a URL query or an assignment).
[[nodiscard]] std::optional<MappedText> decodeQuotedPrintable(std::string_view text);
// \xHH, \uXXXX (and surrogate pairs), \n, \t, \r, \", \\, \/ in a whole text; nullopt if there is
// no escape in it.
[[nodiscard]] std::optional<MappedText> decodeEscapes(std::string_view text);
// Base32 (RFC 4648 alphabet, upper case, padding optional) of a whole run; nullopt as for base64.
[[nodiscard]] std::optional<MappedText> decodeBase32(std::string_view encoded);
// HTML character references in a whole text: &#NNN;, &#xHH; and the named ones a secret or an
// instruction needs (&amp; &lt; &gt; &quot; &apos; &sol; &colon; &lowbar; &period; &comma;
// &equals; &plus; &hyphen; &nbsp;); nullopt if there is none.
[[nodiscard]] std::optional<MappedText> decodeHtmlEntities(std::string_view text);
// The text with the separators of its letter-spaced runs removed: at least kMinSpacedChars
// single characters, each apart from the next by the same separator (one to three of
// " .,-|:_\t"), become one word. nullopt if there is no such run.
[[nodiscard]] std::optional<MappedText> decodeSpaced(std::string_view text);

// String literals joined into one: two or more literals in '', "" or `` quotes, one after another
// with only blanks, line breaks and a concatenation operator between them (+ in JavaScript,
// Java, C# and Python; . in PHP and Perl; & in Visual Basic; || in SQL; .. in Lua; ~ in D; none
// in C and Python), become one line of their contents (escapes as written), each byte mapped to
// where it was. A chain that is broken by anything else (a variable, a call) ends there. nullopt
// if no chain holds kMinConcatenatedChars bytes.
[[nodiscard]] std::optional<MappedText> decodeConcatenated(std::string_view text);

// The literal prefixes that begin credentials (AKIA, ghp_, xoxb-, sk_live_, ...: RuleSet takes
// them from its secret rules' patterns), as they look written backwards and in ROT13, indexed by
// the byte a run is looked up by.
class TokenPrefixes {
 public:
  TokenPrefixes() = default;
  // Prefixes shorter than three bytes, or with a byte that cannot be in a base64 run (the runs
  // they are looked for in), are left out.
  explicit TokenPrefixes(const std::vector<std::string>& prefixes);
  // Whether the constructor keeps `prefix`.
  [[nodiscard]] static bool accepts(std::string_view prefix);
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] std::size_t size() const { return count_; }
  // A run that ends with a prefix reversed (reversed_by_last) or starts with one in ROT13.
  [[nodiscard]] const std::vector<std::string>& reversedEndingWith(char last) const {
    return reversed_by_last_[static_cast<unsigned char>(last)];
  }
  [[nodiscard]] const std::vector<std::string>& rot13StartingWith(char first) const {
    return rot13_by_first_[static_cast<unsigned char>(first)];
  }
  [[nodiscard]] const std::vector<std::string>& startingWith(char first) const {
    return by_first_[static_cast<unsigned char>(first)];
  }

 private:
  std::vector<std::vector<std::string>> by_first_ = std::vector<std::vector<std::string>>(256);
  std::vector<std::vector<std::string>> reversed_by_last_ = std::vector<std::vector<std::string>>(256);
  std::vector<std::vector<std::string>> rot13_by_first_ = std::vector<std::vector<std::string>>(256);
  std::size_t count_ = 0;
};

// A token written backwards ("...7NNDOFSOIAIKA") or in ROT13 ("tuc_..."): a run of token
// characters that ends with a credential prefix reversed or starts with one in ROT13 is turned
// back, each byte mapped to where it was. nullopt if `run` is neither. Cheap enough for every
// run: only its last or first byte is looked up first.
[[nodiscard]] std::optional<MappedText> decodeReversedToken(std::string_view run,
                                                            const TokenPrefixes& prefixes);
[[nodiscard]] std::optional<MappedText> decodeRot13Token(std::string_view run,
                                                         const TokenPrefixes& prefixes);

// A token broken across lines ("ghp_R8aZk3Lq0W" newline "vT5xYb7NcD..."), as a terminal, a
// mail or a log viewer wraps it: a run of token characters that starts with a credential prefix
// and ends at a line break is joined with the run that starts the next line (after its
// indentation), up to kMaxBrokenPieces pieces. Every joined token is one line of the result,
// mapped byte by byte. nullopt if there is none.
inline constexpr std::size_t kMaxBrokenPieces = 4;
[[nodiscard]] std::optional<MappedText> decodeBrokenTokens(std::string_view text,
                                                           const TokenPrefixes& prefixes);

// A credential's value broken across lines where no prefix shows ("PAGERDUTY_TOKEN=u+H3kviKPx"
// newline "Iqw_4cCp4c"): a line that ends in `NAME = value` (or `name: value`, quotes allowed),
// where the name says it holds a credential (key, token, secret, password, auth ...), joined with
// the lines after it that hold only token bytes; each join, name included so keyword rules see
// it, is one line of the result, and only joins whose value looks random (digits, or capitals
// and small letters mixed) are made. nullopt if there is none.
[[nodiscard]] std::optional<MappedText> decodeBrokenAssignments(std::string_view text);

// URLs broken across lines ("ftps://etl:cXLIKZ" newline ".9@cache.local"): a line whose last
// word holds ":/" is joined with the first word of each next line (up to kMaxBrokenPieces
// pieces), each join one line of the result. nullopt if there is none.
[[nodiscard]] std::optional<MappedText> decodeBrokenUrls(std::string_view text);

// URLs written backwards ("tsoh@ssap:resu//:sider"): each stretch around a "//:" up to a space
// or a quote, turned around, is one line of the result, so the rules for credentials in URLs
// read "redis://user:pass@host". nullopt if the text has none.
[[nodiscard]] std::optional<MappedText> decodeReversedUrls(std::string_view text);
// Shortest text worth looking at for one: "a@b:c//:s" with a scheme of a letter or two.
inline constexpr std::size_t kMinReversedUrl = 10;

// Both, in one pass over the line breaks (what decodeAll() uses); tokens only with prefixes.
struct BrokenJoins {
  std::optional<MappedText> tokens;
  std::optional<MappedText> values;
};
[[nodiscard]] BrokenJoins decodeBroken(std::string_view text, const TokenPrefixes* prefixes);

// How much decoding one scan may still do.
struct DecodeBudget {
  std::size_t bytes = 0;  // decoded bytes still allowed; reduced by what decodeAll() returns
  // A decodable run (or a whole-text decoding) did not fit: the text is not fully scanned and
  // the caller must treat it as unscannable.
  bool exhausted = false;
};

// Every decodable substring of `text`, base64 lines joined, within `budget`. Offsets in each map
// are relative to `text`.
[[nodiscard]] std::vector<Decoded> decodeAll(std::string_view text, DecodeBudget& budget,
                                            const TokenPrefixes* prefixes = nullptr);

}  // namespace mcpgate::dlp
