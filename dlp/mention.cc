#include "dlp/mention.h"

#include <algorithm>
#include <array>

namespace mcpgate::dlp {
namespace {

// How far a quotation may reach around the signal: one sentence, not a paragraph.
constexpr std::size_t kMaxBefore = 160;
constexpr std::size_t kMaxAfter = 240;
// How much text before the opening quote may hold the cue word.
constexpr std::size_t kCueWindow = 40;

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

struct Quote {
  std::string_view open;
  std::string_view close;
};
constexpr std::array<Quote, 6> kQuotes = {{{"'", "'"},
                                           {"\"", "\""},
                                           {"(", ")"},
                                           {"\xE2\x80\x9C", "\xE2\x80\x9D"},
                                           {"\xE2\x80\x98", "\xE2\x80\x99"},
                                           {"\xC2\xAB", "\xC2\xBB"}}};

// An apostrophe inside a word ("user's", "don't") opens and closes nothing.
bool inWord(std::string_view text, std::size_t i) {
  return i > 0 && i + 1 < text.size() && isAlnum(text[i - 1]) && isAlnum(text[i + 1]);
}

// The quote that opens at `i`, if one does: a quote character not glued to a word before it.
const Quote* openingAt(std::string_view text, std::size_t i) {
  for (const Quote& q : kQuotes) {
    if (text.substr(i, q.open.size()) != q.open) continue;
    if (q.open.size() == 1 && q.open[0] != '(' && i > 0 && isAlnum(text[i - 1])) return nullptr;
    return &q;
  }
  return nullptr;
}

bool closesAt(std::string_view text, std::size_t i, const Quote& q) {
  if (text.substr(i, q.close.size()) != q.close) return false;
  if (q.close == "'") return !inWord(text, i) && (i + 1 == text.size() || !isAlnum(text[i + 1]));
  return true;
}

// The text before the opening quote ends with a cue word (spaces, ':' and ',' allowed after it).
bool cueBefore(std::string_view text, std::size_t open) {
  static constexpr std::array<std::string_view, 24> kCues = {
      "sentence", "phrase",  "text",      "string", "words",   "word",   "like",   "such as",
      "e.g.",     "e.g.,",   "example",   "payload", "prompt", "says",   "said",   "saying",
      "contained", "containing", "called", "named", "known as", "quote", "quoted", "reads"};
  std::size_t e = open;
  while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == ':' || text[e - 1] == ',')) --e;
  const std::size_t b = e > kCueWindow ? e - kCueWindow : 0;
  const std::string_view before = text.substr(b, e - b);
  for (const std::string_view cue : kCues) {
    if (before.size() < cue.size()) continue;
    const std::size_t at = before.size() - cue.size();
    if (at > 0 && isAlnum(before[at - 1])) continue;
    bool same = true;
    for (std::size_t k = 0; k < cue.size() && same; ++k) same = lower(before[at + k]) == cue[k];
    if (same) return true;
  }
  return false;
}

}  // namespace

bool quotedMention(std::string_view text, std::size_t start, std::size_t end) {
  if (start >= end || end > text.size()) return false;
  const std::size_t floor = start > kMaxBefore ? start - kMaxBefore : 0;
  const Quote* q = nullptr;
  std::size_t open = start;
  for (std::size_t i = start; i-- > floor;) {
    if (text[i] == '\n') return false;
    if (text[i] == '\'' && inWord(text, i)) continue;
    if (const Quote* o = openingAt(text, i); o != nullptr) {
      q = o;
      open = i;
      break;
    }
    // A closing quote between the opening and the signal: the signal is outside that quotation.
    for (const Quote& c : kQuotes) {
      if (closesAt(text, i, c) && c.close != "'") return false;
    }
  }
  if (q == nullptr || !cueBefore(text, open)) return false;
  const std::size_t ceiling = std::min(text.size(), end + kMaxAfter);
  for (std::size_t i = end; i < ceiling; ++i) {
    if (text[i] == '\n') return false;
    if (closesAt(text, i, *q)) return true;
  }
  return false;
}

}  // namespace mcpgate::dlp
