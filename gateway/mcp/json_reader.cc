// jsonrpc::parse: JSON text to an nlohmann::json value, about ten times
// faster than nlohmann's own parser on MCP messages (whose bulk is long
// strings), with the depth limit and duplicate keys checked in the same pass.
//
// nlohmann's lexer reads one character at a time through an input adapter and
// appends each to the token buffer; on tools/call traffic that was the largest
// share of the gateway's CPU (bench/RESULTS.md). This reader copies runs of
// plain string bytes eight at a time, builds the same value nlohmann would
// (objects keep the last of duplicate keys, numbers get nlohmann's types), and
// accepts exactly RFC 8259 JSON: what nlohmann refuses, it refuses
// (tests/gateway/json_reader_test.cc compares the two on a corpus).

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gateway/mcp/json_text.h"
#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway::jsonrpc {
namespace {

class Reader {
 public:
  Reader(std::string_view text, std::uint32_t max_depth)
      : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()),
        max_depth_(max_depth) {}

  // The whole text as one value; false with error_ set otherwise.
  bool document(json& out) {
    skipSpace();
    if (!value(out, 0)) return false;
    skipSpace();
    if (p_ != end_) return fail("unexpected content after the JSON value");
    return true;
  }

  bool duplicates() const { return duplicates_; }
  bool tooDeep() const { return too_deep_; }
  const std::string& error() const { return error_; }

 private:
  bool fail(std::string_view what) {
    if (error_.empty()) {
      std::size_t line = 1;
      const char* line_start = begin_;
      for (const char* c = begin_; c < p_; ++c) {
        if (*c == '\n') {
          ++line;
          line_start = c + 1;
        }
      }
      error_ = "at line " + std::to_string(line) + ", column " +
               std::to_string(p_ - line_start + 1) + ": " + std::string(what);
    }
    return false;
  }

  void skipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return fail("invalid literal");
    }
    p_ += word.size();
    return true;
  }

  bool value(json& out, std::uint32_t depth) {
    if (p_ == end_) return fail("unexpected end of input; expected a value");
    switch (*p_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"':
        // Read into the value's own string: no temporary to move.
        out = json::value_t::string;
        return string(out.get_ref<json::string_t&>());
      case 't':
        out = true;
        return literal("true");
      case 'f':
        out = false;
        return literal("false");
      case 'n':
        out = nullptr;
        return literal("null");
      default:
        return number(out);
    }
  }

  bool enter(std::uint32_t depth) {
    if (depth > max_depth_) {
      too_deep_ = true;
      return fail("too deep");
    }
    ++p_;
    skipSpace();
    return true;
  }

  bool object(json& out, std::uint32_t depth) {
    if (!enter(depth)) return false;
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    for (;;) {
      if (p_ == end_ || *p_ != '"') return fail("expected a string as object key");
      std::string key;
      if (!string(key)) return false;
      skipSpace();
      if (p_ == end_ || *p_ != ':') return fail("expected ':' after an object key");
      ++p_;
      skipSpace();
      // Parsed in place into the member's node; a repeated key's value
      // replaces the first (as nlohmann: the last one wins).
      auto [it, inserted] = members.try_emplace(std::move(key));
      if (inserted) {
        if (!value(it->second, depth)) return false;
      } else {
        duplicates_ = true;
        json item;
        if (!value(item, depth)) return false;
        it->second = std::move(item);
      }
      skipSpace();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        skipSpace();
        continue;
      }
      if (p_ < end_ && *p_ == '}') {
        ++p_;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool array(json& out, std::uint32_t depth) {
    if (!enter(depth)) return false;
    out = json::array();
    auto& items = out.get_ref<json::array_t&>();
    if (p_ < end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      items.emplace_back();
      if (!value(items.back(), depth)) return false;
      skipSpace();
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        skipSpace();
        continue;
      }
      if (p_ < end_ && *p_ == ']') {
        ++p_;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }


  bool string(std::string& out) {
    ++p_;  // the opening quote
    for (;;) {
      const char* run = p_;
      p_ = detail::plainRunEnd(p_, end_);
      out.append(run, p_);
      if (p_ == end_) return fail("unexpected end of input inside a string");
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c == '\\') {
        if (!escape(out)) return false;
      } else if (c < 0x20) {
        return fail("control character in a string must be escaped");
      } else if (!utf8(out)) {
        return false;
      }
    }
  }

  // One UTF-8 sequence (Unicode table 3-7: no overlong forms, no surrogates,
  // nothing above U+10FFFF), appended as it is.
  bool utf8(std::string& out) {
    const long n = detail::utf8Sequence(reinterpret_cast<const unsigned char*>(p_),
                                        static_cast<std::size_t>(end_ - p_));
    if (n <= 0) return fail("invalid UTF-8 sequence in a string");
    out.append(p_, static_cast<std::size_t>(n));
    p_ += n;
    return true;
  }

  bool hex4(std::uint32_t& code) {
    if (end_ - p_ < 4) return fail("truncated \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      code <<= 4;
      if (c >= '0' && c <= '9') {
        code |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        code |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        code |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        --p_;
        return fail("\\u must be followed by four hex digits");
      }
    }
    return true;
  }

  bool escape(std::string& out) {
    ++p_;  // the backslash
    if (p_ == end_) return fail("unexpected end of input in an escape");
    const char c = *p_++;
    switch (c) {
      case '"': out += '"'; return true;
      case '\\': out += '\\'; return true;
      case '/': out += '/'; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default:
        --p_;
        return fail("invalid escape in a string");
    }
    std::uint32_t code = 0;
    if (!hex4(code)) return false;
    if (code >= 0xDC00 && code <= 0xDFFF) return fail("lone low surrogate in a \\u escape");
    if (code >= 0xD800 && code <= 0xDBFF) {
      std::uint32_t low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
        return fail("high surrogate not followed by a low surrogate");
      }
      p_ += 2;
      if (!hex4(low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return fail("high surrogate not followed by a low surrogate");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    return true;
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  // RFC 8259's grammar; the type as nlohmann chooses it: an integer is
  // unsigned when it has no sign, signed when negative, and a double when it
  // does not fit 64 bits or has a fraction or exponent.
  bool number(json& out) {
    const char* start = p_;
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !digit(*p_)) return fail("invalid literal");
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && digit(*p_)) ++p_;
    }
    bool integer = true;
    if (p_ < end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !digit(*p_)) return fail("expected a digit after '.'");
      while (p_ < end_ && digit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return fail("expected a digit in the exponent");
      while (p_ < end_ && digit(*p_)) ++p_;
    }
    if (integer) {
      if (negative) {
        std::int64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          out = v;
          return true;
        }
      } else {
        std::uint64_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          out = v;
          return true;
        }
      }
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(start, p_, d);
    if (ec == std::errc::result_out_of_range) {
      // Underflow reads as strtod reads it (nlohmann's way); overflow is
      // refused, as nlohmann refuses it.
      const std::string copy(start, p_);
      d = std::strtod(copy.c_str(), nullptr);
      if (!std::isfinite(d)) return fail("number overflow");
    } else if (ec != std::errc() || ptr != p_) {
      return fail("invalid number");
    }
    out = d;
    return true;
  }

  const char* p_;
  const char* begin_;
  const char* end_;
  std::uint32_t max_depth_;
  bool duplicates_ = false;
  bool too_deep_ = false;
  std::string error_;
};

}  // namespace

std::expected<json, ParseError> parse(std::string_view text, std::uint32_t max_depth,
                                      bool* duplicate_keys) {
  Reader reader(text, max_depth);
  json value;
  if (!reader.document(value)) {
    if (reader.tooDeep()) {
      return std::unexpected(ParseError{
          kInvalidRequest, "message nests deeper than the limit of " + std::to_string(max_depth)});
    }
    return std::unexpected(ParseError{kParseError, "Parse error " + reader.error()});
  }
  if (!value.is_object() && !value.is_array()) {
    return std::unexpected(
        ParseError{kInvalidRequest, "a JSON-RPC message must be an object or a batch array"});
  }
  if (duplicate_keys != nullptr) *duplicate_keys = reader.duplicates();
  return value;
}

}  // namespace mcpgate::gateway::jsonrpc
