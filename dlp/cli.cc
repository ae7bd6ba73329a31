#include "dlp/cli.h"

#include <cstdlib>
#include <cstring>

#include "dlp/cli_document.h"

namespace mcpgate::dlp {

int runRulesCommand(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && std::strcmp(args[0], "test") == 0) {
    return runRulesTest(args.subspan(1), out, err);
  }
  if (!args.empty() && std::strcmp(args[0], "lint") == 0) {
    return runRulesLint(args.subspan(1), out, err);
  }
  err << "usage: mcpgate rules test [PATH]...\n       mcpgate rules lint [--benign DIR] "
         "[PATH]...\n";
  return kExitError;
}

}  // namespace mcpgate::dlp
