#pragma once

// The parsed-rules cache: rules read from YAML files are stored in a compact binary form keyed by
// a hash of the files' names and bytes, so a warm start (`mcpgate scan`, a gateway restart) skips
// YAML parsing and rule validation, which cost far more than loading the Hyperscan database.
// Any change to a rule file changes the key; a blob that does not read back whole is ignored.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlp/rule.h"

namespace mcpgate::dlp {

struct CachedRules {
  std::vector<Rule> rules;
  // Per rule, RuleSet::Confirm::window before the keyword widening (it needs hs_expression_info).
  std::vector<std::size_t> windows;
};

// SHA-256 of `data` in lower-case hex.
[[nodiscard]] std::string sha256Hex(std::string_view data);

// Key over the format version, the Hyperscan version and every file's path and bytes, in order.
[[nodiscard]] std::string ruleFilesKey(
    const std::vector<std::pair<std::filesystem::path, std::string_view>>& files);
[[nodiscard]] std::string serializeRules(const CachedRules& cached);
[[nodiscard]] std::optional<CachedRules> deserializeRules(std::string_view blob);

}  // namespace mcpgate::dlp
