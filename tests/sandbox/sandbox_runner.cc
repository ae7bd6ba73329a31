// A thin executable over the sandbox module's entry points, so the sandbox
// is built and tested without the gateway: the same dispatch mcpgate does.
//
//   sandbox_runner sandbox-init --spec-fd N
//   sandbox_runner sandbox run [options] -- CMD ARGS
//   sandbox_runner sandbox probe

#include <cstring>
#include <iostream>
#include <span>

#include "sandbox/entry.h"

int main(int argc, char** argv) {
  std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc - 1));
  if (!args.empty() && std::strcmp(args[0], "sandbox-init") == 0) {
    return mcpgate::sandbox::sandboxInitMain(args.subspan(1));
  }
  if (!args.empty() && std::strcmp(args[0], "sandbox") == 0) {
    return mcpgate::sandbox::sandboxCommandMain(args.subspan(1), std::cout, std::cerr);
  }
  std::cerr << "usage: sandbox_runner sandbox run|probe ... | sandbox-init --spec-fd N\n";
  return 2;
}
