// The decoders alone: every decoded byte maps back to a non-empty span inside the input, and the
// budget is never exceeded.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dlp/decode.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;
namespace dlp = mcpgate::dlp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the budget, so "not enough budget" is reached as often as not.
  const std::size_t budget_bytes = static_cast<std::size_t>(data[0]) * 64;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  dlp::DecodeBudget budget{budget_bytes, false};
  // Token prefixes as RuleSet takes them from the secret rules: reversed, ROT13 and line-broken
  // tokens are decoded only with them.
  static const dlp::TokenPrefixes prefixes({"ghp_", "AKIA", "xoxb-", "sk_live_", "hf_", "sk-proj-"});
  const auto all = dlp::decodeAll(text, budget, &prefixes);
  check(budget.bytes <= budget_bytes, "the budget grew");
  std::size_t used = 0;
  for (const auto& d : all) {
    const auto& m = d.mapped;
    check(m.text.size() == m.src_begin.size() && m.text.size() == m.src_end.size(),
          "map and text differ in length");
    for (std::size_t i = 0; i < m.text.size(); ++i) {
      check(m.src_begin[i] < m.src_end[i] && m.src_end[i] <= text.size(),
            "a decoded byte maps outside the input");
    }
    if (d.encoding == dlp::Encoding::kPercent || d.encoding == dlp::Encoding::kEscape ||
        d.encoding == dlp::Encoding::kHtml || d.encoding == dlp::Encoding::kSpaced ||
        d.encoding == dlp::Encoding::kConcatenated || d.encoding == dlp::Encoding::kBroken ||
        d.encoding == dlp::Encoding::kBrokenAssigned || d.encoding == dlp::Encoding::kReversedUrl ||
        d.encoding == dlp::Encoding::kBrokenUrl ||
        d.encoding == dlp::Encoding::kQuotedPrintable) {
      used += m.text.size();
    }
  }
  check(used <= budget_bytes, "whole-text decodings exceeded the budget");
  // The single-run decoders on the whole input.
  for (auto m : {dlp::decodeBase64(text), dlp::decodeHex(text), dlp::decodeBase32(text),
                 dlp::decodeHtmlEntities(text), dlp::decodeSpaced(text),
                 dlp::decodeConcatenated(text), dlp::decodeReversedToken(text, prefixes),
                 dlp::decodeRot13Token(text, prefixes), dlp::decodeBrokenTokens(text, prefixes),
                 dlp::decodeBrokenAssignments(text), dlp::decodeReversedUrls(text),
                 dlp::decodeBrokenUrls(text),
                 dlp::decodeQuotedPrintable(text)}) {
    if (!m) continue;
    for (std::size_t i = 0; i < m->text.size(); ++i) {
      check(m->src_begin[i] < m->src_end[i] && m->src_end[i] <= text.size(),
            "a decoded byte maps outside the run");
    }
  }
  return 0;
}
