#pragma once

// Subcommands of the `mcpgate` executable. Each lives in its own cmd_*.cc and
// takes the arguments after its name.

#include <span>
#include <string_view>

namespace mcpgate::gateway {

using Args = std::span<char* const>;

struct Command {
  std::string_view name;     // "serve", "config check", ...
  std::string_view usage;    // one line: arguments
  std::string_view summary;  // one line: what it does
  int (*run)(Args args);
};

int runServe(Args args);
int runStdio(Args args);
int runConfigCheck(Args args);
int runImport(Args args);  // cmd_import.cc
int runSandbox(Args args);
int runInstall(Args args);
int runScan(Args args);   // cmd_dlp.cc
int runRules(Args args);  // cmd_dlp.cc
int runPolicyExplain(Args args);  // cmd_policy.cc
int runPins(Args args);           // cmd_policy.cc
int runToken(Args args);  // cmd_token.cc
int runSecret(Args args);  // cmd_secret.cc

}  // namespace mcpgate::gateway
