// jsonrpc::serialize: the text nlohmann's dump(-1, ' ', false, replace) gives,
// written several times faster. A redacted message must be serialised again,
// and nlohmann's dump_escaped decodes every byte through a UTF-8 state
// machine: on a 1 MiB tools/call it was a quarter of the gateway's CPU
// (bench/RESULTS.md). Here runs of plain bytes are copied eight at a time.
// tests/gateway/json_reader_test.cc checks the two give the same text.

#include <cstdint>
#include <cstring>
#include <string>

#include "gateway/jsonrpc.h"

namespace mcpgate::gateway::jsonrpc {
namespace {

// True if any of the eight bytes is '"', '\\', a control character or not ASCII.
bool special8(std::uint64_t v) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = v ^ (kOnes * '"');
  const std::uint64_t slash = v ^ (kOnes * '\\');
  const std::uint64_t control = (v - kOnes * 0x20) & ~v;
  return (((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash) | control | v) & kHigh;
}

// The UTF-8 sequence at s (Unicode table 3-7): its length when valid, else
// minus the number of bytes nlohmann's decoder takes before it rejects (at
// least one): those become one U+FFFD, and the byte that broke the sequence
// is read again as the start of the next.
long utf8Sequence(const unsigned char* s, std::size_t left) {
  const unsigned char c = s[0];
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  for (std::size_t i = 1; i < n; ++i) {
    if (i >= left) return -static_cast<long>(left);  // cut short by the end of the string
    const bool ok = i == 1 ? s[i] >= lo && s[i] <= hi : s[i] >= 0x80 && s[i] <= 0xBF;
    if (!ok) return -static_cast<long>(i);
  }
  return static_cast<long>(n);
}

void writeString(const std::string& text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* run = p;
    while (end - p >= 8) {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      if (special8(v)) break;
      p += 8;
    }
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
      ++p;
    }
    out.append(run, p);
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const long n = utf8Sequence(reinterpret_cast<const unsigned char*>(p),
                                  static_cast<std::size_t>(end - p));
      if (n > 0) {
        out.append(p, static_cast<std::size_t>(n));
        p += n;
      } else {
        // As nlohmann's error_handler_t::replace.
        out += "\xEF\xBF\xBD";
        p += -n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    ++p;
  }
  out += '"';
}

void writeValue(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.get_ref<const json::object_t&>()) {
        if (!first) out += ',';
        first = false;
        writeString(key, out);
        out += ':';
        writeValue(item, out);
      }
      out += '}';
      return;
    }
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& item : value.get_ref<const json::array_t&>()) {
        if (!first) out += ',';
        first = false;
        writeValue(item, out);
      }
      out += ']';
      return;
    }
    case json::value_t::string:
      writeString(value.get_ref<const std::string&>(), out);
      return;
    default:
      // Numbers, booleans, null: rare and short; nlohmann's own text.
      out += value.dump(-1, ' ', false, json::error_handler_t::replace);
      return;
  }
}

}  // namespace

std::string serialize(const json& value) {
  std::string out;
  writeValue(value, out);
  return out;
}

}  // namespace mcpgate::gateway::jsonrpc
