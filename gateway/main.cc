// The mcpgate executable: a table of subcommands, nothing else.

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "gateway/cli/cli.h"
#include "sandbox/entry.h"

namespace {

using mcpgate::gateway::Command;

const std::vector<Command>& commands() {
  using namespace mcpgate::gateway;
  static const std::vector<Command> table = {
      {"serve", "-c FILE [--listen HOST:PORT] [--spawner SOCKET]", "serve MCP over Streamable HTTP at /mcp/<server>",
       runServe},
      {"stdio", "-c FILE SERVER", "proxy one server over stdin/stdout (for desktop MCP clients)",
       runStdio},
      {"config check", "FILE", "validate a config file and print the effective config",
       runConfigCheck},
      {"import", "FILE",
       "print an mcpgate config, for review, from a Claude Desktop, Cursor or VS Code file, "
       "with the sandbox binds its servers' host paths need",
       runImport},
      {"install", "-c FILE [SERVER]...",
       "install the npm packages of npx servers into the cache they run from offline", runInstall},
      {"sandbox", "run [OPTIONS] -- CMD [ARGS] | run -c FILE --server NAME | probe",
       "run a command in the server sandbox, or show which layers this host can enforce",
       runSandbox},
      {"scan", "[--rules PATH]... [--json] [--direction request|response] FILE|DIR|-...",
       "scan files with the DLP rules (exit 0 clean, 1 findings, 2 error)", runScan},
      {"rules", "test|lint [PATH]...",
       "run every rule's examples (test) or check packs for problems (lint)", runRules},
      {"policy explain", "-c FILE --server S [--tool T] [--client C]",
       "print the policy and the rule actions that apply to one server, tool and client",
       runPolicyExplain},
      {"pins", "list -c FILE [SERVER] | approve -c FILE SERVER [TOOL]...",
       "show tool pins (pinned, changed, new) or approve new and changed tool definitions",
       runPins},
      {"token", "new [--client NAME]",
       "print a new bearer token and the auth.tokens line with its SHA-256", runToken},
      {"secret", "set|list|rm|rotate-key (-c FILE | --state-dir DIR) [NAME]",
       "manage the encrypted server secrets (${secret:NAME} in env; values from stdin)",
       runSecret},
  };
  return table;
}

void printUsage(std::ostream& out) {
  out << "usage: mcpgate COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& c : commands()) {
    out << "  mcpgate " << c.name << " " << c.usage << "\n      " << c.summary << "\n";
  }
  out << "  mcpgate version\n      print the version\n";
}

}  // namespace

int main(int argc, char** argv) {
  // What sandbox::spawn() re-executes (/proc/self/exe sandbox-init ...):
  // dispatched before anything else so the process stays single-threaded.
  if (argc > 1 && std::strcmp(argv[1], "sandbox-init") == 0) {
    return mcpgate::sandbox::sandboxInitMain(
        std::span<char* const>(argv + 2, static_cast<std::size_t>(argc - 2)));
  }
  std::vector<char*> args(argv + 1, argv + argc);
  if (args.empty() || std::strcmp(args[0], "help") == 0 || std::strcmp(args[0], "--help") == 0 ||
      std::strcmp(args[0], "-h") == 0) {
    printUsage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (std::strcmp(args[0], "version") == 0 || std::strcmp(args[0], "--version") == 0) {
    std::cout << "mcpgate " << MCPGATE_VERSION << "\n";
    return 0;
  }
  // Longest match first, so "config check" wins over a one-word command.
  const Command* best = nullptr;
  std::size_t best_words = 0;
  for (const auto& c : commands()) {
    std::size_t words = 1, pos = 0;
    std::string_view name = c.name;
    bool ok = true;
    std::size_t i = 0;
    while (ok) {
      auto space = name.find(' ', pos);
      std::string_view word =
          name.substr(pos, space == std::string_view::npos ? name.npos : space - pos);
      ok = i < args.size() && word == args[i];
      if (!ok || space == std::string_view::npos) break;
      pos = space + 1;
      ++i;
      ++words;
    }
    if (ok && words > best_words) {
      best = &c;
      best_words = words;
    }
  }
  if (best == nullptr) {
    std::cerr << "mcpgate: unknown command '" << args[0] << "'\n\n";
    printUsage(std::cerr);
    return 2;
  }
  return best->run(mcpgate::gateway::Args(args).subspan(best_words));
}
