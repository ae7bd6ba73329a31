// The gateway's own JSON reader and writer and JSON-RPC classification, as a client's POST body
// reaches them: what the reader accepts nlohmann reads as the same value; the writer writes
// exactly what nlohmann's dump writes; classifying, keying and naming the tool of every message
// never fails. Of an object (the shape of a server's answer), what jsonscan::envelopeOf finds in
// the text is what the reader read, and the splice the gateway forwards a modern client's answer
// with (another id, `resultType` added to the result) reads as that value with those two edits.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "gateway/mcp/json_scan.h"
#include "gateway/mcp/jsonrpc.h"
#include "tests/fuzz/fuzz_check.h"

using mcpgate::fuzz::check;
namespace jsonrpc = mcpgate::gateway::jsonrpc;
namespace jsonscan = mcpgate::gateway::jsonscan;
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

// The raw value starting at `from` in `text`, read alone (by nlohmann: the reader takes
// messages, objects and arrays only, and equals nlohmann on those, checked below).
json rawValue(std::string_view text, std::size_t from, std::size_t to = jsonscan::kBad) {
  if (to == jsonscan::kBad) to = jsonscan::skipValue(text, from);
  check(to != jsonscan::kBad && to > from, "a member's value cannot be skipped");
  json read = json::parse(text.substr(from, to - from), nullptr, false);
  check(!read.is_discarded(), "a member's raw value does not read alone");
  return read;
}

void envelopeAgrees(std::string_view text, const json& value) {
  const auto envelope = jsonscan::envelopeOf(text);
  check(envelope.has_value(), "envelopeOf refused an object the reader read");
  if (envelope->id_from != jsonscan::kBad) {
    check(value.contains("id") && rawValue(text, envelope->id_from, envelope->id_to) == value["id"],
          "the envelope's id is not the message's");
  }
  if (envelope->result != jsonscan::kBad) {
    check(value.contains("result") && rawValue(text, envelope->result) == value["result"],
          "the envelope's result is not the message's");
  }
  if (envelope->error != jsonscan::kBad) {
    check(value.contains("error") && rawValue(text, envelope->error) == value["error"],
          "the envelope's error is not the message's");
  }
  if (envelope->id_from == jsonscan::kBad ||
      (envelope->result == jsonscan::kBad && envelope->error == jsonscan::kBad)) {
    return;
  }
  // As modern_flow.cc's plainAnswer forwards an answer: the client's id in place of the
  // gateway's, and resultType put first in an object result that lacks it.
  json expected = value;
  expected["id"] = "client-7";
  std::size_t at = jsonscan::kBad;
  std::string_view stamp;
  if (envelope->result != jsonscan::kBad && value["result"].is_object() &&
      !value["result"].contains("resultType")) {
    at = envelope->result + 1;
    stamp = value["result"].empty() ? R"("resultType":"complete")" : R"("resultType":"complete",)";
    expected["result"]["resultType"] = "complete";
  }
  const std::string out =
      jsonscan::spliced(text, envelope->id_from, envelope->id_to, R"("client-7")", at, stamp);
  bool duplicates = false;
  const auto reread = jsonrpc::parse(out, 64, &duplicates);
  check(reread.has_value() && !duplicates && *reread == expected,
        "the spliced answer does not read as the answer with its two edits");
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
  if (value.is_object() && !duplicate_keys) envelopeAgrees(text, value);
  if (value.is_array()) {
    for (const json& message : value) inspect(message);
  } else {
    inspect(value);
  }
  return 0;
}
