#include "common/errno_text.h"

#include <system_error>

namespace mcpgate::common {

// Thread-safe, unlike strerror.
std::string errnoText(int error) { return std::generic_category().message(error); }

}  // namespace mcpgate::common
