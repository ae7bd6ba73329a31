#pragma once

// Scanning: plain text or the strings of a JSON-RPC message against one RuleSet.
//
// Per piece of text: one Hyperscan pass reports (rule, end offset) candidates; for each, RE2 runs
// on a bounded window around the end to confirm and find the exact span; then the secret group
// goes through length limits, keywords, excludes and the validator. The same is repeated on the
// normalized text (if it differs) and on every decoded substring, and findings are mapped back to
// the original bytes.

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dlp/rule.h"
#include "dlp/rule_set.h"

namespace mcpgate::dlp {

// What the caller (the gateway's per-tool policy) changes about the rules for one scan.
struct Policy {
  std::unordered_set<std::string> disabled;         // rule ids switched off
  std::unordered_map<std::string, Action> actions;  // rule id -> action replacing its default
  bool all_directions = false;  // ignore each rule's `directions` (offline `mcpgate scan`)
  // Detector id -> threshold replacing the one of its pack (per-tool policy).
  std::unordered_map<std::string, int> thresholds;
  // Also report every detector signal that matched as a finding of its own (rule examples).
  bool signals = false;
  bool normalize = true;  // fold Unicode tricks before matching
  bool decode = true;     // decode base64/hex/percent/escapes and scan the result
  std::size_t max_decode_depth = 2;
  // Decoding work: decoded bytes per scanned string and per message. What does not fit is not
  // fully scanned, and `unscanned` applies to the message (closed by default).
  std::size_t max_decoded_bytes = 4 << 20;
  std::size_t max_decoded_bytes_per_message = 8 << 20;
  Action unscanned = Action::kBlock;
};

struct Finding {
  const Rule* rule = nullptr;  // owned by Findings::rules
  Action action = Action::kWarn;
  std::string pointer;  // JSON pointer of the string; empty for plain text
  bool in_key = false;  // the string is the object key at `pointer`, not its value
  // Byte span in the (JSON-decoded) string or text.
  std::size_t start = 0;
  std::size_t end = 0;
  // How the secret was hidden: "" (plainly), "unicode", "base64", "hex", "percent", "escape",
  // or a chain such as "base64>unicode" (outermost first).
  std::string decoded_by;
  // For a detector's finding: the signals that matched in the string (each rule once, in rule
  // order) and the sum of their weights. The span runs from the first signal to the end of the
  // last; the text itself is never part of a finding.
  std::vector<const Rule*> signals;
  int score = 0;
};

struct Findings {
  std::shared_ptr<const RuleSet> rules;  // keeps Finding::rule alive
  std::vector<Finding> items;
  // The scan could not run (scratch allocation failed, text over 4 GiB). Fail closed: strongest()
  // is then kBlock.
  bool failed = false;
  // Part of the message was left undecoded at a decode limit: why, naming the limit and where
  // (empty if all was scanned), and the action that applies for it (Policy::unscanned).
  std::string unscanned;
  Action unscanned_action = Action::kBlock;

  [[nodiscard]] bool empty() const { return items.empty() && unscanned.empty(); }
  // The action the gateway applies to the message; kLog if there are no findings.
  [[nodiscard]] Action strongest() const;
};

class Scanner {
 public:
  explicit Scanner(std::shared_ptr<const RuleSet> rules) : rules_(std::move(rules)) {}

  // Scans every string value and object key of `message`.
  [[nodiscard]] Findings scan(const nlohmann::json& message, Direction direction,
                              const Policy& policy = {}) const;
  // Scans one piece of text. `context` (e.g. the JSON key holding the text) also satisfies a
  // rule's keywords.
  [[nodiscard]] Findings scanText(std::string_view text, Direction direction,
                                  const Policy& policy = {}, std::string_view context = {}) const;

  [[nodiscard]] const std::shared_ptr<const RuleSet>& rules() const { return rules_; }

 private:
  std::shared_ptr<const RuleSet> rules_;
};

// Appends one reference token to a JSON pointer: "/" + key with "~" and "/"
// escaped (RFC 6901). The scanner's pointers and `mcpgate scan`'s file index
// must spell them the same way.
void appendPointerToken(std::string& pointer, std::string_view key);

}  // namespace mcpgate::dlp
