#pragma once

// What the fuzz targets share: a failed property is a crash libFuzzer keeps (with its input), and
// the shipped rule packs are loaded once per process.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include "dlp/rule_set.h"

namespace mcpgate::fuzz {

// A property of the code under test does not hold for this input.
[[noreturn]] inline void broken(std::string_view what) {
  std::fprintf(stderr, "property broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void check(bool ok, std::string_view what) {
  if (!ok) broken(what);
}

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
