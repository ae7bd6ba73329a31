// mcpgate-sandbox-init: the program sandbox::spawn() re-executes to build a
// sandbox, installed next to `mcpgate`. It holds only this module (no DLP
// engine, no HTTP, no YAML, no TLS), is linked statically where the build
// allows, and so starts in a fraction of the time the whole gateway binary
// takes to load and relocate; `mcpgate sandbox-init` remains the fallback.
// Single-threaded by construction: nothing here starts a thread.

#include <unistd.h>

#include <cstring>
#include <span>

#include "sandbox/entry.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "sandbox-init") == 0) {
    return mcpgate::sandbox::sandboxInitMain(
        std::span<char* const>(argv + 2, static_cast<std::size_t>(argc - 2)));
  }
  constexpr char kUsage[] =
      "mcpgate-sandbox-init: internal program of mcpgate, started by the gateway as\n"
      "  mcpgate-sandbox-init sandbox-init --spec-fd N [--parent-pid PID]\n"
      "To run a command in the sandbox yourself: mcpgate sandbox run [OPTIONS] -- CMD\n";
  (void)::write(STDERR_FILENO, kUsage, sizeof kUsage - 1);
  return 2;
}
