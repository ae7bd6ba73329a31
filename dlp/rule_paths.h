#pragma once

// Where the shipped rule packs are: the default of every command that loads rules.

#include <filesystem>
#include <vector>

namespace mcpgate::dlp {

// The shipped packs: $MCPGATE_RULES if set; else, for the running executable (see below).
[[nodiscard]] std::vector<std::filesystem::path> defaultRulePaths();
// The shipped packs for an executable at `exe`: <exe dir>/../share/mcpgate/rules if it exists (an
// installed or relocated tree: `cmake --install` puts them there); else the source tree's rules/
// if `exe` lies in this build tree; else the configured install prefix's share/mcpgate/rules;
// else the source tree's rules/ if it still exists. Empty if none exists.
[[nodiscard]] std::vector<std::filesystem::path> defaultRulePathsFor(
    const std::filesystem::path& exe);

}  // namespace mcpgate::dlp
