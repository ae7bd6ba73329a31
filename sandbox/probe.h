#pragma once

// What this host can enforce, layer by layer, and why not: tried for real
// (a throwaway child unshares each namespace) rather than guessed from
// kernel versions or sysctls.

#include <string>
#include <vector>

namespace mcpgate::sandbox {

struct LayerStatus {
  std::string layer;
  bool available = false;
  std::string detail;  // how it is enforced, or why it cannot be
};

[[nodiscard]] std::vector<LayerStatus> probeHost();

}  // namespace mcpgate::sandbox
