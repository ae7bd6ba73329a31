// `mcpgate scan` and `mcpgate rules test|lint`: thin wrappers, the commands live in dlp/ so they
// are tested without this binary.

#include <iostream>

#include "dlp/cli.h"
#include "gateway/cli/cli.h"

namespace mcpgate::gateway {

int runScan(Args args) { return dlp::runScanCommand(args, std::cout, std::cerr); }

int runRules(Args args) { return dlp::runRulesCommand(args, std::cout, std::cerr); }

}  // namespace mcpgate::gateway
