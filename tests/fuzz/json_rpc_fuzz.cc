// The gateway's own JSON reader and writer and JSON-RPC classification, as a client's POST body
// reaches them: what the reader accepts nlohmann reads as the same value; the writer writes
// exactly what nlohmann's dump writes; classifying, keying and naming the tool of every message
// never fails.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "gateway/mcp/jsonrpc.h"
#include "tests/fuzz/fuzz_check.h"

using mcpgate::fuzz::check;
namespace jsonrpc = mcpgate::gateway::jsonrpc;
using nlohmann::json;

namespace {

void inspect(const json& message) {
  const jsonrpc::Kind kind = jsonrpc::classify(message);
  (void)kind;
  (void)jsonrpc::toolOf(message);
  if (message.is_object()) {
    if (auto id = message.find("id"); id != message.end()) {
      check(!jsonrpc::idKey(*id).empty(), "an id without a key");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bool duplicate_keys = false;
  const auto parsed = jsonrpc::parse(text, 64, &duplicate_keys);
  if (!parsed) {
    check(!parsed.error().message.empty(), "a refusal without a message");
    return 0;
  }
  const json& value = *parsed;
  const json theirs = json::parse(text, nullptr, false);
  check(!theirs.is_discarded(), "the reader accepted what nlohmann refuses");
  check(theirs == value, "the reader and nlohmann read different values");
  const std::string written = jsonrpc::serialize(value);
  check(written == value.dump(-1, ' ', false, json::error_handler_t::replace),
        "the writer and nlohmann's dump differ");
  if (value.is_array()) {
    for (const json& message : value) inspect(message);
  } else {
    inspect(value);
  }
  return 0;
}
