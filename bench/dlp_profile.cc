// One deterministic pass of the DLP engine over the benchmark corpus, for instruction counts
// under callgrind (wall-clock figures on these shared machines move by 1.5x between runs):
//
//   valgrind --tool=callgrind --toggle-collect='mcpgate::dlp::Scanner::*'
//            build-dlp/bench/dlp_profile full
//
// Modes: full (whole pipeline), match (no normalize/decode), small (1000 small tools/call).
// Rules come from $MCPGATE_RULES or the source tree; the compiled database is cached in
// $MCPGATE_CACHE_DIR, so a second run does not count the Hyperscan compile.

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <vector>

#include "bench/dlp_corpus.h"
#include "dlp/cli.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"

int main(int argc, char** argv) {
  using namespace mcpgate::dlp;
  const std::string_view mode = argc > 1 ? argv[1] : "full";
  LoadOptions lo;
  if (const char* c = std::getenv("MCPGATE_CACHE_DIR")) lo.cache_dir = c;
  const auto paths = defaultRulePaths();
  auto rules = RuleSet::load(paths, lo);
  if (!rules) {
    std::cerr << rules.error().message << "\n";
    return 2;
  }
  const Scanner scanner(*rules);
  Policy p;
  p.all_directions = true;
  std::size_t findings = 0;
  if (mode == "small") {
    const auto msg = nlohmann::json::parse(mcpgate::bench::kSmallToolsCall);
    Policy gw;
    for (int i = 0; i < 1000; ++i)
      findings += scanner.scan(msg, Direction::kRequest, gw).items.size();
  } else {
    if (mode == "match") {
      p.normalize = false;
      p.decode = false;
    }
    for (const auto& d : mcpgate::bench::docs()) {
      findings += scanner.scanText(d, Direction::kResponse, p).items.size();
    }
  }
  std::cout << mode << ": " << findings << " findings\n";
  return findings == 0 ? 0 : 1;
}
