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
  while (pos < p.size()) {
    if (p.substr(pos).starts_with("(?:")) {
      // An alternation of plain words, then not optional or repeated.
      std::vector<std::string> alts{""};
      std::size_t i = pos + 3;
      bool plain = true;
      for (; i < p.size() && p[i] != ')'; ) {
        char c = 0;
        if (p[i] == '|') {
          alts.emplace_back();
          ++i;
        } else if (const std::size_t w = literalAt(p, i, c); w != 0 && !quantifierAt(p, i + w)) {
          alts.back() += c;
          i += w;
        } else {
          plain = false;
          break;
        }
      }
      if (!plain || i >= p.size() || quantifierAt(p, i + 1) ||
          std::ranges::any_of(alts, [](const std::string& a) { return a.empty(); }) ||
          heads.size() * alts.size() > kMaxHeads) {
        break;
      }
      std::vector<std::string> next;
      for (const auto& h : heads) {
        for (const auto& a : alts) next.push_back(h + a);
      }
      heads = std::move(next);
      pos = i + 1;
      continue;
    }
    char c = 0;
    const std::size_t w = literalAt(p, pos, c);
    if (w == 0) break;
    if (quantifierAt(p, pos + w)) {
      if (p[pos + w] == '+') {
        for (auto& h : heads) h += c;  // at least once
      }
      break;
    }
    for (auto& h : heads) h += c;
    pos += w;
  }
  if (heads.size() == 1 && heads[0].empty()) return {};
  return heads;
}

}  // namespace mcpgate::dlp
