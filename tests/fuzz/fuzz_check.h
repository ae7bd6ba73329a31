#pragma once

// A failed property is a crash libFuzzer keeps, with its input.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace mcpgate::fuzz {

// A property of the code under test does not hold for this input.
[[noreturn]] inline void broken(std::string_view what) {
  std::fprintf(stderr, "property broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

inline void check(bool ok, std::string_view what) {
  if (!ok) broken(what);
}

}  // namespace mcpgate::fuzz
