#include "gateway/guard/ambiguity.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway {

using nlohmann::json;

namespace {

// `key` as Go's encoding/json compares it with a member name: ASCII case
// folded, and the two non-ASCII letters Unicode folds to ASCII ones, the long
// s (U+017F) and the Kelvin sign (U+212A).
std::string foldedAsGoDoes(std::string_view key) {
  std::string folded;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key.substr(i).starts_with("\xC5\xBF")) {
      folded += 's';
      i += 1;
    } else if (key.substr(i).starts_with("\xE2\x84\xAA")) {
      folded += 'k';
      i += 2;
    } else {
      folded += static_cast<char>(std::tolower(static_cast<unsigned char>(key[i])));
    }
  }
  return folded;
}

// `key` (ASCII) equals `want` (lower case) with ASCII case folded.
bool foldsTo(std::string_view key, std::string_view want) {
  if (key.size() != want.size()) return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(key[i])) != want[i]) return false;
  }
  return true;
}

// A key that is not `exact` (lower case) but that a case-insensitive parser
// (Go's encoding/json) reads as `exact`. Every message's keys are read here:
// an ASCII key (nearly all) is compared in place, only others are folded.
std::optional<std::string> caseVariantOf(const json& object,
                                         std::initializer_list<std::string_view> exact) {
  for (const auto& [key, value] : object.get_ref<const json::object_t&>()) {
    const bool ascii =
        std::ranges::all_of(key, [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    const std::string folded = ascii ? std::string() : foldedAsGoDoes(key);
    for (std::string_view want : exact) {
      if (key != want && (ascii ? foldsTo(key, want) : folded == want)) return key;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Verdict> ambiguity(const mcp::Message& parsed, const std::string& server) {
  const json& message = parsed.value;
  if (!message.is_object()) return std::nullopt;
  auto refuse = [&](int code, std::string_view reason, std::string text) {
    Verdict verdict;
    verdict.action = Verdict::Action::kReject;
    verdict.code = code;
    verdict.message = std::move(text);
    verdict.data = {{"gateway", "mcpgate"}, {"reason", reason}, {"server", server}};
    return verdict;
  };
  if (auto key = caseVariantOf(message, {"jsonrpc", "id", "method", "params", "result", "error"})) {
    return refuse(
        jsonrpc::kInvalidRequest, "invalid_request",
        "member '" + key->substr(0, 64) + "' differs from a JSON-RPC member only in case");
  }
  if (parsed.method != "tools/call") return std::nullopt;
  auto params = message.find("params");
  if (params == message.end() || !params->is_object()) {
    return refuse(jsonrpc::kInvalidParams, "invalid_params", "tools/call needs params with a name");
  }
  auto name = params->find("name");
  if (name == params->end() || !name->is_string()) {
    return refuse(jsonrpc::kInvalidParams, "invalid_params",
                  "tools/call needs params.name, the tool's name as a string");
  }
  if (auto key = caseVariantOf(*params, {"name", "arguments"})) {
    return refuse(jsonrpc::kInvalidParams, "invalid_params",
                  "tools/call params member '" + key->substr(0, 64) +
                      "' differs from 'name' or 'arguments' only in case");
  }
  return std::nullopt;
}

}  // namespace mcpgate::gateway
