// The pattern syntax both engines read, looked at as text: what Hyperscan is given for a pattern,
// and where the two engines would read a pattern differently. Apart from rule.cc (the YAML and
// the checks), since both walk a pattern's braces outside classes and escapes.

#include <algorithm>
#include <string>
#include <string_view>

#include "dlp/hs_util.h"

namespace mcpgate::dlp {

std::string hsExpression(std::string_view p) {
  constexpr long kWideRepeat = 24;
  std::string out;
  out.reserve(p.size());
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out += p.substr(i, 2);
      ++i;
      continue;
    }
    if (in_class) {
      in_class = c != ']';
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.push_back(c);
      // A ']' right after '[' or '[^' is a literal member, not the end of the class.
      if (i + 1 < p.size() && p[i + 1] == '^') out.push_back(p[++i]);
      if (i + 1 < p.size() && p[i + 1] == ']') out.push_back(p[++i]);
      continue;
    }
    if (c == '{') {
      const auto close = p.find('}', i);
      const auto comma = p.find(',', i);
      if (close != std::string_view::npos && comma != std::string_view::npos && comma < close) {
        const auto lo = p.substr(i + 1, comma - i - 1);
        const auto hi = p.substr(comma + 1, close - comma - 1);
        const auto digits = [](std::string_view d) {
          return !d.empty() && std::ranges::all_of(d, [](char x) { return x >= '0' && x <= '9'; });
        };
        if (digits(lo) && digits(hi) &&
            std::stol(std::string(hi)) - std::stol(std::string(lo)) > kWideRepeat) {
          out += "{";
          out += lo;
          out += ",}";
          i = close;
          continue;
        }
      }
    }
    out.push_back(c);
  }
  return out;
}

std::string re2Expression(std::string_view p) {
  // PCRE's (and Hyperscan's) white space: RE2's \s lacks \v.
  constexpr std::string_view kSpace = "\\t\\n\\x0B\\f\\r ";
  std::string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[++i];
      if (e == 's') {
        if (in_class) {
          out += kSpace;
        } else {
          out += '[';
          out += kSpace;
          out += ']';
        }
      } else if (e == 'S' && !in_class) {
        out += "[^";
        out += kSpace;
        out += ']';
      } else {
        // `\S` inside a class stays: RE2 cannot put a negated set inside a class, and its `\S`
        // differs from PCRE's on 0x0B alone (the shipped rules write it only as `[\s\S]`).
        out += c;
        out += e;
      }
      continue;
    }
    if (in_class) {
      in_class = c != ']';
      out.push_back(c);
      continue;
    }
    out.push_back(c);
    if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == '^') out.push_back(p[++i]);
      if (i + 1 < p.size() && p[i + 1] == ']') out.push_back(p[++i]);
    }
  }
  return out;
}

// Where `p` has a repeat count written with a leading zero (`{06}`, `{1,020}`), or npos. RE2
// reads such a brace as literal text and Hyperscan as a repeat, so the two engines would match
// different things.
std::size_t leadingZeroRepeat(std::string_view p) {
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == '^') ++i;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;
    } else if (c == '{') {
      const auto close = p.find('}', i);
      if (close == std::string_view::npos) return std::string_view::npos;
      const auto body = p.substr(i + 1, close - i - 1);
      if (!body.empty() &&
          std::ranges::all_of(body, [](char x) { return (x >= '0' && x <= '9') || x == ','; })) {
        for (std::size_t k = 0; k + 1 < body.size(); ++k) {
          const bool starts = k == 0 || body[k - 1] == ',';
          if (starts && body[k] == '0' && body[k + 1] >= '0' && body[k + 1] <= '9') return i;
        }
      }
    }
  }
  return std::string_view::npos;
}

namespace {

bool plainByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '/' || c == '=' || c == ':' || c == '@';
}

// The literal byte at `i` (plain, or escaped punctuation such as \. \- \/), and its width in the
// pattern; 0 if there is none.
std::size_t literalAt(std::string_view p, std::size_t i, char& c) {
  if (i >= p.size()) return 0;
  if (plainByte(p[i])) {
    c = p[i];
    return 1;
  }
  if (p[i] == '\\' && i + 1 < p.size() && std::string_view(".-_/+=:@").find(p[i + 1]) != std::string_view::npos) {
    c = p[i + 1];
    return 2;
  }
  return 0;
}

bool quantifierAt(std::string_view p, std::size_t i) {
  return i < p.size() && (p[i] == '?' || p[i] == '*' || p[i] == '+' || p[i] == '{');
}

// One position of a literal: a literal byte, or a small class of them ("[AT]", "[bp]"); the
// bytes it may be go to `members`. Returns its width in the pattern, or 0.
constexpr std::size_t kMaxClassMembers = 4;
std::size_t pieceAt(std::string_view p, std::size_t i, std::string& members) {
  members.clear();
  char c = 0;
  if (const std::size_t w = literalAt(p, i, c); w != 0) {
    members.push_back(c);
    return w;
  }
  if (i >= p.size() || p[i] != '[') return 0;
  std::size_t j = i + 1;
  while (j < p.size() && p[j] != ']') {
    const std::size_t w = literalAt(p, j, c);
    if (w == 0 || (c == '-' && w == 1) || members.size() == kMaxClassMembers) return 0;  // a range
    members.push_back(c);
    j += w;
  }
  if (j >= p.size() || members.empty()) return 0;
  return j + 1 - i;
}

// Every head followed by every member, or false when that would be more than `most` heads.
bool extend(std::vector<std::string>& heads, std::string_view members, std::size_t most) {
  if (heads.size() * members.size() > most) return false;
  std::vector<std::string> next;
  next.reserve(heads.size() * members.size());
  for (const auto& h : heads) {
    for (const char m : members) next.push_back(h + m);
  }
  heads = std::move(next);
  return true;
}

}  // namespace

std::vector<std::string> leadingLiterals(std::string_view p, int group) {
  std::size_t pos = 0;
  if (group > 0) {
    int seen = 0;
    bool in_class = false;
    for (; pos < p.size(); ++pos) {
      const char c = p[pos];
      if (c == '\\') {
        ++pos;
      } else if (in_class) {
        in_class = c != ']';
      } else if (c == '[') {
        in_class = true;
        if (pos + 1 < p.size() && p[pos + 1] == ']') ++pos;  // a leading ] is a member
      } else if (c == '(' && (pos + 1 >= p.size() || p[pos + 1] != '?') && ++seen == group) {
        ++pos;
        break;
      }
    }
    if (pos >= p.size()) return {};
  } else {
    while (p.substr(pos).starts_with("\\b") || p.substr(pos).starts_with("^")) {
      pos += p[pos] == '^' ? 1 : 2;
    }
  }
  constexpr std::size_t kMaxHeads = 16;
  std::vector<std::string> heads{""};
  std::string members;
  while (pos < p.size()) {
    if (p.substr(pos).starts_with("(?:")) {
      // An alternation of plain words (small classes allowed), then not repeated; an optional
      // one adds the heads without it.
      std::vector<std::string> alts;
      std::vector<std::string> current{""};
      std::size_t i = pos + 3;
      bool plain = true;
      for (; i < p.size() && p[i] != ')';) {
        if (p[i] == '|') {
          alts.insert(alts.end(), current.begin(), current.end());
          current = {""};
          ++i;
        } else if (const std::size_t w = pieceAt(p, i, members);
                   w != 0 && !quantifierAt(p, i + w) && extend(current, members, kMaxHeads)) {
          i += w;
        } else {
          plain = false;
          break;
        }
      }
      alts.insert(alts.end(), current.begin(), current.end());
      const bool optional = i + 1 < p.size() && p[i + 1] == '?' &&
                            !(i + 2 < p.size() && quantifierAt(p, i + 2));
      if (optional) alts.emplace_back();
      if (!plain || i >= p.size() || (!optional && quantifierAt(p, i + 1)) ||
          (!optional && std::ranges::any_of(alts, [](const std::string& a) { return a.empty(); })) ||
          heads.size() * alts.size() > kMaxHeads) {
        break;
      }
      std::vector<std::string> next;
      for (const auto& h : heads) {
        for (const auto& a : alts) next.push_back(h + a);
      }
      heads = std::move(next);
      pos = i + (optional ? 2 : 1);
      continue;
    }
    const std::size_t w = pieceAt(p, pos, members);
    if (w == 0) break;
    if (quantifierAt(p, pos + w)) {
      if (p[pos + w] == '+' && members.size() == 1) {
        for (auto& h : heads) h += members[0];  // at least once
      }
      break;
    }
    if (!extend(heads, members, kMaxHeads)) break;
    pos += w;
  }
  // A head that may be nothing (an optional group, then no literal) is no prefix at all.
  if (std::ranges::any_of(heads, [](const std::string& h) { return h.empty(); })) return {};
  return heads;
}

}  // namespace mcpgate::dlp
