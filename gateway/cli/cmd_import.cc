// mcpgate import FILE: a desktop client's config (Claude Desktop, Cursor, VS
// Code) as mcpgate YAML on stdout, for review; what it could not carry over
// goes to stderr.

#include <iostream>

#include "config/config.h"
#include "config/import.h"
#include "config/visibility.h"
#include "gateway/cli/cli.h"

namespace mcpgate::gateway {

int runImport(Args args) {
  if (args.size() != 1) {
    std::cerr << "usage: mcpgate import FILE   (claude_desktop_config.json, .cursor/mcp.json, "
                 ".vscode/mcp.json)\n";
    return 2;
  }
  auto config = config::loadConfig(args[0]);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  std::cout << config::importedYaml(**config);
  // The binds are in the YAML; a path that does not exist here is bound at its
  // nearest existing folder, or as written, which the operator must check.
  for (const config::HiddenPath& hidden : config::hiddenPaths(**config)) {
    if (!hidden.exists) {
      std::cerr << "note: " << (*config)->servers_key << "." << hidden.server << "." << hidden.where
                << ": " << hidden.path << " does not exist on this host; the config binds "
                << hidden.bind << ": correct it before serving\n";
    }
  }
  return 0;
}

}  // namespace mcpgate::gateway
