#include "common/loopback.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace mcpgate::common {

bool isLoopbackHost(std::string_view host) {
  constexpr std::string_view kLocalhost = "localhost";
  if (std::ranges::equal(host, kLocalhost, [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
      })) {
    return true;
  }
  // inet_pton wants a terminated string; no address is longer than 45 characters
  // (INET6_ADDRSTRLEN less its NUL), so a longer host is none.
  std::array<char, 64> text{};
  if (host.size() >= text.size()) return false;
  std::ranges::copy(host, text.begin());
  std::array<unsigned char, 16> bytes{};
  if (::inet_pton(AF_INET, text.data(), bytes.data()) == 1) return bytes[0] == 127;
  if (::inet_pton(AF_INET6, text.data(), bytes.data()) == 1) {
    static constexpr std::array<unsigned char, 16> kLoopback6 = {0, 0, 0, 0, 0, 0, 0, 0,
                                                                 0, 0, 0, 0, 0, 0, 0, 1};
    return bytes == kLoopback6;
  }
  return false;
}

}  // namespace mcpgate::common
