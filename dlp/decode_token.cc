// Tokens that are not written the way a rule reads them but keep their prefix: backwards, in
// ROT13, or broken across lines. The prefixes come from the secret rules (RuleSet), so these views
// are only made, and only answer for those rules, where a credential's own prefix shows.

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dlp/decode.h"
#include "dlp/decode_support.h"

namespace mcpgate::dlp {
using detail::findPair;
using detail::isAlnum;
using detail::isDigit;
using detail::isRunByte;

namespace {

char rot13(char c) {
  if (c >= 'a' && c <= 'z') return static_cast<char>('a' + (c - 'a' + 13) % 26);
  if (c >= 'A' && c <= 'Z') return static_cast<char>('A' + (c - 'A' + 13) % 26);
  return c;
}

// Shortest body after a prefix worth turning a run for: every credential with a prefix is longer.
constexpr std::size_t kMinTokenBody = 8;
constexpr std::size_t kMinTokenPrefix = 3;

// A prefix that ordinary words and data do not start with: three bytes or more with a letter and a
// digit or a mark ("hf_", "sk-", "r8_"), or four letters or more with a capital and not all one
// letter ("AKIA", "AIza"). All-lower-case words ("key", "pat", "dose") and runs such as "AAAA"
// begin too many runs of ordinary text to turn or join each.
bool distinctive(std::string_view p) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  if (p.size() < kMinTokenPrefix || !std::ranges::any_of(p, letter)) return false;
  if (!std::ranges::all_of(p, letter)) return true;
  return p.size() >= 4 && std::ranges::any_of(p, upper) &&
         std::ranges::any_of(p, [&](char c) { return c != p.front(); });
}

}  // namespace

bool TokenPrefixes::accepts(std::string_view prefix) {
  return std::ranges::all_of(prefix, isRunByte) && distinctive(prefix);
}

TokenPrefixes::TokenPrefixes(const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (!accepts(p)) continue;
    std::string r(p.rbegin(), p.rend());
    auto& by_last = reversed_by_last_[static_cast<unsigned char>(r.back())];
    if (std::ranges::find(by_last, r) != by_last.end()) continue;  // listed already
    by_last.push_back(std::move(r));
    by_first_[static_cast<unsigned char>(p.front())].push_back(p);
    std::string t(p);
    for (char& c : t) c = rot13(c);
    rot13_by_first_[static_cast<unsigned char>(t.front())].push_back(std::move(t));
    ++count_;
  }
}

std::optional<MappedText> decodeReversedToken(std::string_view run, const TokenPrefixes& prefixes) {
  if (run.empty()) return std::nullopt;
  if (run.size() < kMinTokenPrefix + kMinTokenBody) return std::nullopt;
  const char second_last = run[run.size() - 2];
  for (const auto& prefix : prefixes.reversedEndingWith(run.back())) {
    // One byte more before the whole compare: most runs share a last byte with some prefix.
    if (prefix[prefix.size() - 2] != second_last || run.size() < prefix.size() + kMinTokenBody ||
        !run.ends_with(prefix)) {
      continue;
    }
    MappedText out;
    out.reserve(run.size());
    for (std::size_t k = run.size(); k-- > 0;) out.push(run[k], k, k + 1);
    return out;
  }
  return std::nullopt;
}

std::optional<MappedText> decodeRot13Token(std::string_view run, const TokenPrefixes& prefixes) {
  if (run.empty()) return std::nullopt;
  if (run.size() < kMinTokenPrefix + kMinTokenBody) return std::nullopt;
  for (const auto& prefix : prefixes.rot13StartingWith(run.front())) {
    if (prefix[1] != run[1] || run.size() < prefix.size() + kMinTokenBody ||
        !run.starts_with(prefix)) {
      continue;
    }
    MappedText out;
    out.reserve(run.size());
    for (std::size_t k = 0; k < run.size(); ++k) out.push(rot13(run[k]), k, k + 1);
    return out;
  }
  return std::nullopt;
}

namespace {

// Longest piece of a broken token looked back over from a line break.
constexpr std::size_t kMaxBrokenPiece = 256;
// Fewest digits a joined token must hold (36 random base62 characters hold none with a chance
// of 0.2 %; hex and base64 tokens hold many).
constexpr std::ptrdiff_t kMinBrokenDigits = 2;
// An assignment's value broken across lines: at least this much of it before the break, each
// continuation at least kMinAssignedPiece, and a name of at most kMaxAssignedName bytes.
constexpr std::size_t kMinAssignedValue = 8;
constexpr std::size_t kMinAssignedPiece = 4;
constexpr std::size_t kMaxAssignedName = 64;
// Longest stretch either side of "//:" taken as a URL written backwards.
constexpr std::size_t kMaxReversedUrl = 512;


bool startsWithPrefix(std::string_view run, const TokenPrefixes& prefixes) {
  for (const auto& p : prefixes.startingWith(run.front())) {
    if (run.size() > p.size() && run.starts_with(p)) return true;
  }
  return false;
}

bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isLower(char c) { return c >= 'a' && c <= 'z'; }

// A joined token's body is random: over the joined pieces it has digits, or capitals and small
// letters mixed as no word or name in code mixes them (a capital per word at most). Names that
// happen to start like a token ("ptr_map_adapter") and the next line's first word have neither.
bool looksRandom(std::string_view body) {
  if (std::ranges::count_if(body, isDigit) >= kMinBrokenDigits) return true;
  const auto upper = std::ranges::count_if(body, isUpper);
  const auto lower = std::ranges::count_if(body, isLower);
  return upper >= 4 && lower >= 4 && upper * 4 >= upper + lower;
}

// Calls f(k) for each line break (text[k] == '\n'), sixteen bytes at a time: most lines of code
// and logs are short, and a call per line (memchr) costs more than the line.
template <class F>
void forEachLineBreak(std::string_view text, F&& f) {
  std::size_t base = 0;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  for (; base + 16 <= text.size(); base += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + base));
    for (auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))); mask != 0;
         mask &= mask - 1) {
      f(base + static_cast<std::size_t>(__builtin_ctz(mask)));
    }
  }
#endif
  for (; base < text.size(); ++base) {
    if (text[base] == '\n') f(base);
  }
}

// The start of the run of token bytes that ends a line at break `k` (before a '\r'), or nullopt
// when the line does not end in one, it is longer than a piece, or the next line (after its
// indentation) does not start with one.
struct LineEndRun {
  std::size_t start;
  std::size_t end;
};
std::optional<LineEndRun> runBeforeBreak(std::string_view text, std::size_t k) {
  std::size_t end = k;
  if (end > 0 && text[end - 1] == '\r') --end;
  if (end == 0 || !isRunByte(text[end - 1])) return std::nullopt;
  std::size_t first = k + 1;
  while (first < text.size() && first - k <= 16 && (text[first] == ' ' || text[first] == '\t')) {
    ++first;
  }
  if (first >= text.size() || !isRunByte(text[first])) return std::nullopt;
  std::size_t start = end;
  while (start > 0 && end - start < kMaxBrokenPiece && isRunByte(text[start - 1])) --start;
  if (start > 0 && isRunByte(text[start - 1])) return std::nullopt;  // longer than a piece
  return LineEndRun{start, end};
}

// Adds to `joined` the pieces that start the lines after break `brk`, one at a time, calling
// emit() after each while `accept(piece)` holds; returns where the last joined piece ended.
template <class Accept, class Emit>
std::size_t joinPieces(std::string_view text, std::size_t brk, MappedText& joined,
                       std::size_t body_from, Accept&& accept, Emit&& emit) {
  std::size_t done = brk;
  for (std::size_t pieces = 1; pieces < kMaxBrokenPieces && brk < text.size();) {
    std::size_t next = brk + 1;
    while (next < text.size() && next - brk <= 16 && (text[next] == ' ' || text[next] == '\t')) {
      ++next;
    }
    std::size_t stop = next;
    while (stop < text.size() && stop - next < kMaxBrokenPiece && isRunByte(text[stop])) ++stop;
    if (stop == next) break;
    const std::string_view piece = text.substr(next, stop - next);
    if (!std::ranges::any_of(piece, isAlnum)) break;  // a rule of ////, ---- or ____
    if (!accept(piece, stop)) break;
    for (std::size_t b = next; b < stop; ++b) joined.push(text[b], b, b + 1);
    ++pieces;
    done = stop;
    if (looksRandom(std::string_view(joined.text).substr(body_from))) emit();
    std::size_t after = stop;
    if (after < text.size() && text[after] == '\r') ++after;
    if (after >= text.size() || text[after] != '\n') break;
    brk = after;
  }
  return done;
}

// Words in a name that holds a credential ("PAGERDUTY_TOKEN", "db_password", "apiKey").
bool namesCredential(std::string_view name) {
  std::array<char, kMaxAssignedName> buffer{};  // lower-cased in place: no allocation per name
  const std::size_t n = std::min(name.size(), buffer.size());
  for (std::size_t i = 0; i < n; ++i) {
    const char c = name[i];
    buffer[i] = isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
  }
  const std::string_view lower(buffer.data(), n);
  for (std::string_view word : {"key", "token", "secret", "passw", "pwd", "auth", "credential"}) {
    if (lower.find(word) != std::string_view::npos) return true;
  }
  return false;
}

bool isNameByte(char c) { return isAlnum(c) || c == '_' || c == '-' || c == '.'; }

// Adds `line` to `out` as one more line of the result (its '\n' mapped to `at`).
void appendLine(std::optional<MappedText>& out, const MappedText& line, std::size_t at) {
  if (!out) out.emplace();
  if (!out->text.empty()) out->push('\n', at, at + 1);
  out->append(line);
}

// Both kinds of line-broken joins in one pass over the line breaks (each break's run is found
// once): tokens that start with a prefix into `tokens` (when `prefixes` is given), values
// assigned to a credential's name into `values` (when given).
void joinBroken(std::string_view text, const TokenPrefixes* prefixes,
                std::optional<MappedText>* tokens, std::optional<MappedText>* values) {
  std::size_t tokens_done = 0;  // joined up to here: a later break inside the same token is not a start
  std::size_t values_done = 0;
  const auto joinToken = [&](std::size_t k, const LineEndRun& run) {
    if (run.end - run.start < kMinTokenPrefix + 1 ||
        !startsWithPrefix(text.substr(run.start, run.end - run.start), *prefixes)) {
      return;
    }
    // Where the token ends is not known: each join (two pieces, three, ...) is a line of its own.
    MappedText joined;
    joined.reserve(run.end - run.start + 2 * kMaxBrokenPiece);
    for (std::size_t b = run.start; b < run.end; ++b) joined.push(text[b], b, b + 1);
    const auto emit = [&] { appendLine(*tokens, joined, run.start); };
    tokens_done =
        joinPieces(text, k, joined, 0, [](std::string_view, std::size_t) { return true; }, emit);
  };
  const auto joinValue = [&](std::size_t k, const LineEndRun& run) {
    if (run.end - run.start < kMinAssignedValue) return;
    // Back from the value: a quote, spaces, '=' or ':' (or ":="), spaces, a quote, the name.
    std::size_t i = run.start;
    if (i > 0 && (text[i - 1] == '"' || text[i - 1] == '\'')) --i;
    while (i > 0 && text[i - 1] == ' ') --i;
    if (i == 0 || (text[i - 1] != '=' && text[i - 1] != ':')) return;
    --i;
    if (i > 0 && text[i] == '=' && (text[i - 1] == ':' || text[i - 1] == '=')) {
      if (text[i - 1] == '=') return;  // a comparison
      --i;
    }
    while (i > 0 && text[i - 1] == ' ') --i;
    if (i > 0 && (text[i - 1] == '"' || text[i - 1] == '\'')) --i;
    const std::size_t name_end = i;
    while (i > 0 && name_end - i < kMaxAssignedName && isNameByte(text[i - 1])) --i;
    if (i == name_end || (i > 0 && isNameByte(text[i - 1])) ||
        !namesCredential(text.substr(i, name_end - i))) {
      return;
    }
    const std::size_t from = i;
    MappedText joined;
    joined.reserve(run.end - from + 2 * kMaxBrokenPiece);
    for (std::size_t b = from; b < run.end; ++b) joined.push(text[b], b, b + 1);
    const auto emit = [&] { appendLine(*values, joined, from); };
    // A continuation is a line of token bytes alone: the line ends after it, or a quote or a
    // separator closes the value. "next_key: value" is the next assignment, not more of this one.
    const auto alone = [&](std::string_view piece, std::size_t stop) {
      if (piece.size() < kMinAssignedPiece) return false;
      // Base64's '=' padding may end it; "next_key=value" is an assignment.
      while (stop < text.size() && text[stop] == '=') ++stop;
      return stop >= text.size() || text[stop] == '\r' || text[stop] == '\n' ||
             text[stop] == '"' || text[stop] == '\'' || text[stop] == ',' || text[stop] == ';';
    };
    values_done = joinPieces(text, k, joined, run.start - from, alone, emit);
  };
  forEachLineBreak(text, [&](std::size_t k) {
    const bool token = tokens != nullptr && k >= tokens_done;
    const bool value = values != nullptr && k >= values_done;
    if (!token && !value) return;
    // Cheap refusals first (in runBeforeBreak): a break with no token byte right before it, or
    // none starting the next line (after its indentation), joins nothing.
    const auto run = runBeforeBreak(text, k);
    if (!run) return;
    if (token) joinToken(k, *run);
    if (value) joinValue(k, *run);
  });
}

}  // namespace

std::optional<MappedText> decodeBrokenUrls(std::string_view text) {
  std::optional<MappedText> out;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  // From each ":/" (few in most texts; findPair passes the many ':' of JSON quickly), to the
  // end of its word: a line break there is where a URL may go on.
  std::size_t from = 0;
  while (from + 2 <= text.size()) {
    const std::size_t at = findPair(text, from, ':', '/');
    if (at == std::string_view::npos) break;
    std::size_t end = at + 2;
    while (end < text.size() && end - at < kMaxReversedUrl && !space(text[end])) ++end;
    from = end;
    std::size_t k = end;  // the line break
    if (k < text.size() && text[k] == '\r') ++k;
    if (k >= text.size() || text[k] != '\n') continue;
    std::size_t start = at;
    while (start > 0 && at - start < kMaxReversedUrl && !space(text[start - 1])) --start;
    // The line ends inside a URL: its last word holds "://" (or ends in a scheme's ":/", as
    // "jdbc:mysql:/" cut after it) and nothing after that closes the URL (a quote, a bracket,
    // a comma): "'http://a/b')" and "vendor_perl:/opt/x\"," end lines of code, not URLs.
    // Walked back from the end: the last "://" of the word, stopping at what closes a URL.
    const auto closes = [](char c) {
      switch (c) {
        case '"': case '\'': case '`': case ',': case ';': case '(': case ')':
        case '<': case '>': case '[': case ']': case '{': case '}':
          return true;
        default:
          return false;
      }
    };
    bool url = end - start >= 3 && text[end - 1] == '/' && text[end - 2] == ':';  // "jdbc:mysql:/"
    for (std::size_t i = end; !url && i > start + 3; --i) {
      if (closes(text[i - 1])) break;
      url = text[i - 1] == '/' && text[i - 2] == '/' && text[i - 3] == ':';
    }
    if (!url) continue;
    MappedText joined;
    for (std::size_t b = start; b < end; ++b) joined.push(text[b], b, b + 1);
    std::size_t brk = k;
    for (std::size_t pieces = 1; pieces < kMaxBrokenPieces && brk < text.size(); ++pieces) {
      std::size_t next = brk + 1;
      while (next < text.size() && next - brk <= 16 && (text[next] == ' ' || text[next] == '\t')) {
        ++next;
      }
      std::size_t stop = next;
      while (stop < text.size() && stop - next < kMaxReversedUrl && !space(text[stop])) ++stop;
      if (stop == next) break;
      for (std::size_t b = next; b < stop; ++b) joined.push(text[b], b, b + 1);
      from = stop;
      appendLine(out, joined, start);
      std::size_t after = stop;
      if (after < text.size() && text[after] == '\r') ++after;
      if (after >= text.size() || text[after] != '\n') break;
      brk = after;
    }
  }
  return out;
}

std::optional<MappedText> decodeReversedUrls(std::string_view text) {
  std::optional<MappedText> out;
  const auto stops = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '"' || c == '\'' || c == '`' ||
           c == '<' || c == '>' || c == '(' || c == ')';
  };
  std::size_t from = 0;
  for (;;) {
    const std::size_t slash = findPair(text, from, '/', ':');  // the "/:" of "//:"
    if (slash == std::string_view::npos) break;
    if (slash == 0 || text[slash - 1] != '/') {
      from = slash + 1;
      continue;
    }
    const std::size_t at = slash - 1;
    // The span around it: a written-backwards URL has no space or quote in it.
    std::size_t l = at;
    while (l > 0 && at - l < kMaxReversedUrl && !stops(text[l - 1])) --l;
    std::size_t r = at + 3;
    while (r < text.size() && r - at < kMaxReversedUrl && !stops(text[r])) ++r;
    from = r;
    // Backwards, a URL's scheme ends the span: "//:" then at least a letter ("//:ptth").
    if (r == at + 3 || l == at) continue;
    if (!out) out.emplace();
    if (!out->text.empty()) out->push('\n', l, l + 1);
    for (std::size_t b = r; b > l; --b) out->push(text[b - 1], b - 1, b);
  }
  return out;
}

std::optional<MappedText> decodeBrokenTokens(std::string_view text, const TokenPrefixes& prefixes) {
  std::optional<MappedText> out;
  if (!prefixes.empty()) joinBroken(text, &prefixes, &out, nullptr);
  return out;
}

std::optional<MappedText> decodeBrokenAssignments(std::string_view text) {
  std::optional<MappedText> out;
  joinBroken(text, nullptr, nullptr, &out);
  return out;
}

BrokenJoins decodeBroken(std::string_view text, const TokenPrefixes* prefixes) {
  BrokenJoins joins;
  const bool tokens = prefixes != nullptr && !prefixes->empty();
  joinBroken(text, tokens ? prefixes : nullptr, tokens ? &joins.tokens : nullptr, &joins.values);
  return joins;
}

}  // namespace mcpgate::dlp
