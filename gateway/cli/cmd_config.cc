// mcpgate config check FILE

#include <iostream>

#include "config/config.h"
#include "config/visibility.h"
#include "gateway/cli/cli.h"
#include "gateway/guard/auth.h"
#include "gateway/guard/dlp_filter.h"

namespace mcpgate::gateway {

int runConfigCheck(Args args) {
  if (args.size() != 1) {
    std::cerr << "usage: mcpgate config check FILE\n";
    return 2;
  }
  auto config = config::loadConfig(args[0]);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  // The rules too: a pack that would stop `serve` at startup fails the check,
  // and so does a policy naming a rule or category no loaded rule has.
  if (auto loaded = loadRulesAndPolicies(**config); !loaded) {
    std::cerr << loaded.error() << "\n";
    return 1;
  }
  // And the JWKS keys, built as `serve` builds them (the loader checks their shape only).
  if ((*config)->auth.enabled()) {
    if (auto verifier = auth::Authenticator::create(**config); !verifier) {
      std::cerr << verifier.error() << "\n";
      return 1;
    }
  }
  std::cout << config::describeConfig(**config);
  // Valid, but a server would exit at once: a host path it is given that its
  // sandbox does not show. Warnings (stderr, exit 0): the bind may be unwanted.
  for (const config::HiddenPath& hidden : config::hiddenPaths(**config)) {
    std::cerr << "warning: " << config::describe(hidden, (*config)->servers_key) << "\n";
  }
  return 0;
}

}  // namespace mcpgate::gateway
