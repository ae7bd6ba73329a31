#pragma once

// What the fuzz targets share: a failed property is a crash libFuzzer keeps (with its input), and
// the shipped rule packs are loaded once per process.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include "dlp/rule_set.h"
#include "tests/fuzz/fuzz_check.h"

namespace mcpgate::fuzz {

inline std::shared_ptr<const dlp::RuleSet> shippedRules() {
  static const auto rules = [] {
    const std::filesystem::path dir = std::filesystem::path(MCPGATE_SOURCE_DIR) / "rules";
    const char* cache = std::getenv("MCPGATE_CACHE_DIR");
    auto r = dlp::RuleSet::load(std::span(&dir, 1), dlp::LoadOptions{cache ? cache : ""});
    if (!r) broken("the shipped rules do not load: " + r.error().message);
    return *r;
  }();
  return rules;
}

}  // namespace mcpgate::fuzz
