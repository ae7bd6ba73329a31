// `mcpgate rules test|lint` without the gateway binary, so CTest can check the shipped packs
// even while the gateway does not build.

#include <iostream>
#include <span>

#include "dlp/cli.h"

int main(int argc, char** argv) {
  return mcpgate::dlp::runRulesCommand(std::span<char* const>(argv + 1, argv + argc), std::cout,
                                       std::cerr);
}
