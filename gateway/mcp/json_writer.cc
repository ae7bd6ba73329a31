// jsonrpc::serialize: the text nlohmann's dump(-1, ' ', false, replace) gives,
// written several times faster. A redacted message must be serialised again,
// and nlohmann's dump_escaped decodes every byte through a UTF-8 state
// machine: on a 1 MiB tools/call it was a quarter of the gateway's CPU
// (bench/RESULTS.md). Here runs of plain bytes are copied eight at a time.
// tests/gateway/json_reader_test.cc checks the two give the same text.

#include <charconv>
#include <cstdint>
#include <iterator>
#include <cstring>
#include <string>
#include <string_view>

#include "common/encoding.h"
#include "gateway/mcp/json_text.h"
#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway::jsonrpc {
namespace {

void writeString(std::string_view text, std::string& out) {
  out += '"';
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* run = p;
    p = detail::plainRunEnd(p, end);
    out.append(run, p);
    if (p == end) break;
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const long n = detail::utf8Sequence(reinterpret_cast<const unsigned char*>(p),
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
        out += common::kHexDigits[c >> 4];
        out += common::kHexDigits[c & 15];
    }
    ++p;
  }
  out += '"';
}

// An integer as nlohmann writes it: plain decimal. Request ids are integers
// more often than not, and dump() sets up a serializer (a shared output
// adapter, the locale) for every one.
template <typename Integer>
void appendDecimal(Integer number, std::string& out) {
  char digits[24];
  const auto result = std::to_chars(std::begin(digits), std::end(digits), number);
  out.append(digits, result.ptr);
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
    case json::value_t::number_integer:
      appendDecimal(value.get_ref<const json::number_integer_t&>(), out);
      return;
    case json::value_t::number_unsigned:
      appendDecimal(value.get_ref<const json::number_unsigned_t&>(), out);
      return;
    case json::value_t::boolean:
      out += value.get_ref<const json::boolean_t&>() ? "true" : "false";
      return;
    case json::value_t::null:
      out += "null";
      return;
    default:
      // Floating point (and discarded or binary values): nlohmann's own text,
      // whose shortest round-trip form is not worth repeating here.
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

void appendSerialized(const json& value, std::string& out) { writeValue(value, out); }

void appendString(std::string_view text, std::string& out) { writeString(text, out); }

}  // namespace mcpgate::gateway::jsonrpc
