// The DLP scanner with its decoders and redaction, on a JSON-RPC message (or, when the input is
// not JSON, on plain text). Properties: findings lie inside their string; redacting every finding
// leaves valid JSON (strict UTF-8) in which a second scan finds nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "dlp/redact.h"
#include "dlp/scanner.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;
using nlohmann::json;
namespace dlp = mcpgate::dlp;

namespace {

const dlp::Policy& redactEverything() {
  static const dlp::Policy policy = [] {
    dlp::Policy p;
    p.all_directions = true;
    for (const auto& rule : mcpgate::fuzz::shippedRules()->rules()) {
      p.actions.emplace(rule.id, dlp::Action::kRedact);
    }
    // Small budgets: the fuzzer reaches the "not fully scanned" paths too.
    p.max_decoded_bytes = 16 * 1024;
    p.max_decoded_bytes_per_message = 32 * 1024;
    return p;
  }();
  return policy;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static const dlp::Scanner scanner(mcpgate::fuzz::shippedRules());
  const dlp::Policy& policy = redactEverything();

  json message = json::parse(input, nullptr, false);
  if (message.is_discarded()) {
    const auto found = scanner.scanText(input, dlp::Direction::kRequest, policy);
    for (const auto& f : found.items) {
      check(f.start < f.end && f.end <= input.size(), "a finding lies outside the text");
    }
    const std::string redacted = dlp::redactText(input, found.items);
    // The same characters may stay elsewhere where no rule matched them (a token glued to a
    // word): what must not stay is anything a rule finds in plain text. A marker is shorter
    // than most secrets, so it can bring a key that was beyond a keyword's reach (256 bytes)
    // within it: such a finding counts only if it is also left when each finding is masked in
    // place (same length), where nothing moved.
    const auto left = scanner.scanText(redacted, dlp::Direction::kRequest, policy);
    const bool plain_left = std::ranges::any_of(
        left.items, [](const dlp::Finding& f) { return f.decoded_by.empty(); });
    if (plain_left) {
      std::string masked(input);
      for (const auto& f : found.items) {
        std::fill(masked.begin() + static_cast<std::ptrdiff_t>(f.start),
                  masked.begin() + static_cast<std::ptrdiff_t>(f.end), '*');
      }
      const auto still = scanner.scanText(masked, dlp::Direction::kRequest, policy);
      for (const auto& f : still.items) {
        check(!f.decoded_by.empty(), "redacted text still holds a plain finding: " + f.rule->id);
      }
    }
    return 0;
  }
  const auto found = scanner.scan(message, dlp::Direction::kRequest, policy);
  if (found.failed || found.items.empty()) return 0;
  json redacted = message;
  const auto changed = dlp::redact(redacted, found);
  check(changed.has_value(), "redact() could not apply the scanner's own findings");
  std::string text;
  try {
    text = redacted.dump(-1, ' ', false, json::error_handler_t::strict);
  } catch (const json::exception&) {
    mcpgate::fuzz::broken("redacted message is not valid UTF-8 JSON");
  }
  const json again = json::parse(text, nullptr, false);
  check(!again.is_discarded(), "redacted message does not parse");
  const auto left = scanner.scan(again, dlp::Direction::kRequest, policy);
  for (const auto& f : left.items) {
    // The replacement names the rule; what is left must not be a secret again.
    check(f.decoded_by.find("base64") != std::string::npos ||
              f.decoded_by.find("hex") != std::string::npos,
          "a plain secret is left after redaction: " + f.rule->id + " at " + f.pointer);
  }
  return 0;
}
