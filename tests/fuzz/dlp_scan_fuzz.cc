// The DLP scanner with its decoders and redaction, on a JSON-RPC message (or, when the input is
// not JSON, on plain text). Properties: findings lie inside their string; redacting every finding
// leaves valid JSON (strict UTF-8) in which a second scan finds nothing; a request scan that keeps
// each rule's directions (the request database) finds what the all-directions scan finds for
// the rules that apply to requests.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

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

// The findings of rules that apply to requests, as comparable tuples.
std::vector<std::tuple<std::string, std::string, std::size_t, std::size_t, std::string>> onRequests(
    const dlp::Findings& found) {
  std::vector<std::tuple<std::string, std::string, std::size_t, std::size_t, std::string>> out;
  for (const auto& f : found.items) {
    if (f.rule->request) out.emplace_back(f.rule->id, f.pointer, f.start, f.end, f.decoded_by);
  }
  std::ranges::sort(out);
  return out;
}

const dlp::Policy& keepDirections() {
  static const dlp::Policy policy = [] {
    dlp::Policy p = redactEverything();
    p.all_directions = false;
    return p;
  }();
  return policy;
}

void checkRequestDatabase(const dlp::Findings& all, const dlp::Findings& request) {
  check(all.failed == request.failed, "the request database's scan failed differently");
  check(onRequests(all) == onRequests(request),
        "the request database's findings differ from the full database's on request rules");
}

}  // namespace

// The shipped packs load (a cold compile is ~20 s under ASan) before the first input, outside
// libFuzzer's per-input timeout: CI's fuzz tree starts with an empty rule cache.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)mcpgate::fuzz::shippedRules();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static const dlp::Scanner scanner(mcpgate::fuzz::shippedRules());
  const dlp::Policy& policy = redactEverything();

  json message = json::parse(input, nullptr, false);
  if (message.is_discarded()) {
    const auto found = scanner.scanText(input, dlp::Direction::kRequest, policy);
    checkRequestDatabase(found, scanner.scanText(input, dlp::Direction::kRequest, keepDirections()));
    for (const auto& f : found.items) {
      check(f.start < f.end && f.end <= input.size(), "a finding lies outside the text");
    }
    const std::string redacted = dlp::redactText(input, found.items);
    // What must not stay is anything a rule finds in plain text that the first scan missed.
    // Two effects of the edit itself are not misses, so a left-over finding is checked again
    // with each finding masked in place (same length, nothing moves): a marker is shorter than
    // most secrets and can bring a key that was beyond a keyword's reach (256 bytes) within
    // it; and text glued to a secret (`TOKEN=abc` + `ghp\x5f...`) can match once the secret
    // beside it is gone. Only a finding that is left with nothing moved and that neither
    // overlaps nor touches a masked span is one the first scan missed.
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
        const bool beside = std::ranges::any_of(found.items, [&](const dlp::Finding& g) {
          return f.start <= g.end && g.start <= f.end;
        });
        check(!f.decoded_by.empty() || beside,
              "redacted text still holds a plain finding: " + f.rule->id);
      }
    }
    return 0;
  }
  const auto found = scanner.scan(message, dlp::Direction::kRequest, policy);
  checkRequestDatabase(found, scanner.scan(message, dlp::Direction::kRequest, keepDirections()));
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
