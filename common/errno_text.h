#pragma once

// The text of an errno value ("No such file or directory"), the one home of it.

#include <cerrno>
#include <string>

namespace mcpgate::common {

[[nodiscard]] std::string errnoText(int error = errno);

}  // namespace mcpgate::common
