#pragma once

#include <string>

namespace mcpgate::dlp {

// What went wrong, phrased for the person who has to fix it: the file and line of the rule, the
// rule id, or the limit that was hit.
struct Error {
  std::string message;
};

}  // namespace mcpgate::dlp
