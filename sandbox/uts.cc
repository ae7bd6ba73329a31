#include "sandbox/uts.h"

#include <unistd.h>

#include <cctype>

namespace mcpgate::sandbox {

std::string defaultHostname(const std::string& server_name) {
  std::string name = "mcp-" + (server_name.empty() ? std::string("server") : server_name);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') c = '-';
  }
  if (name.size() > 63) name.resize(63);
  return name;
}

std::expected<void, Error> setHostname(const std::string& name) {
  if (::sethostname(name.data(), name.size()) != 0)
    return std::unexpected(sysError("sethostname " + name));
  return {};
}

}  // namespace mcpgate::sandbox
