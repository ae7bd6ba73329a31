#pragma once

// `mcpgate scan` and `mcpgate rules test|lint` as library functions, so they are tested without
// the gateway binary. Each takes the arguments after its command name and returns the exit code:
// 0 clean / passed, 1 findings / failures, 2 usage or load error.

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "dlp/rule_set.h"

namespace mcpgate::dlp {

// mcpgate scan [--rules PATH]... [--json] [--direction request|response] FILE|DIR|-...
[[nodiscard]] int runScanCommand(std::span<char* const> args, std::ostream& out, std::ostream& err);
// mcpgate rules test [PATH]...  |  mcpgate rules lint [--benign DIR] [PATH]...
[[nodiscard]] int runRulesCommand(std::span<char* const> args, std::ostream& out,
                                  std::ostream& err);
[[nodiscard]] int runRulesTest(std::span<char* const> args, std::ostream& out, std::ostream& err);
[[nodiscard]] int runRulesLint(std::span<char* const> args, std::ostream& out, std::ostream& err);

// The shipped packs: $MCPGATE_RULES if set, else <exe dir>/../share/mcpgate/rules if it exists,
// else the source tree's rules/.
[[nodiscard]] std::vector<std::filesystem::path> defaultRulePaths();

// One example of one rule that did not behave as written.
struct ExampleFailure {
  std::string where;  // file:line of the example
  std::string rule_id;
  std::string message;
};
// Runs every `match` and `no_match` example of every rule through the full scan pipeline.
[[nodiscard]] std::vector<ExampleFailure> runExamples(const std::shared_ptr<const RuleSet>& rules);

}  // namespace mcpgate::dlp
