// `mcpgate sandbox run|probe`: the sandbox module's own command, with the
// process's stdio. (The hidden `sandbox-init` mode is dispatched in main.cc
// before anything else, since it must stay single-threaded.)

#include <iostream>

#include "gateway/cli.h"
#include "sandbox/entry.h"

namespace mcpgate::gateway {

int runSandbox(Args args) { return sandbox::sandboxCommandMain(args, std::cout, std::cerr); }

}  // namespace mcpgate::gateway
