#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dlp/rule_set.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp::testing {

inline std::filesystem::path sourceDir() { return MCPGATE_SOURCE_DIR; }

// The rule ids of the findings, in order; the first finding of rule `id`, or null.
inline std::vector<std::string> ruleIds(const Findings& f) {
  std::vector<std::string> ids;
  for (const auto& x : f.items) ids.push_back(x.rule->id);
  return ids;
}

inline const Finding* findRule(const Findings& f, std::string_view id) {
  for (const auto& x : f.items) {
    if (x.rule->id == id) return &x;
  }
  return nullptr;
}

// The shipped packs, loaded once for the whole test binary.
inline std::shared_ptr<const RuleSet> shippedRules() {
  static const auto rules = [] {
    const std::vector<std::filesystem::path> paths = {sourceDir() / "rules"};
    // The cache keeps each test process from recompiling the packs (ctest runs one per test).
    const char* cache = std::getenv("MCPGATE_CACHE_DIR");
    auto r = RuleSet::load(paths, LoadOptions{cache ? cache : ""});
    if (!r) ADD_FAILURE() << r.error().message;
    return r ? *r : nullptr;
  }();
  return rules;
}

inline std::shared_ptr<const RuleSet> rulesFromYaml(const std::string& yaml) {
  auto parsed = loadRuleText(yaml, "test.yaml");
  if (!parsed) {
    ADD_FAILURE() << parsed.error().message;
    return nullptr;
  }
  auto set = RuleSet::fromRules(std::move(*parsed));
  if (!set) {
    ADD_FAILURE() << set.error().message;
    return nullptr;
  }
  return *set;
}

}  // namespace mcpgate::dlp::testing
