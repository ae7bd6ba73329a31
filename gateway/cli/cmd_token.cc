// mcpgate token new [--client NAME]

#include <iostream>
#include <string>
#include <string_view>

#include "common/digest.h"
#include "common/encoding.h"
#include "gateway/cli/cli.h"
#include "gateway/guard/auth.h"

namespace mcpgate::gateway {

int runToken(Args args) {
  constexpr std::string_view kUsage = "usage: mcpgate token new [--client NAME]\n";
  if (args.empty() || std::string_view(args[0]) != "new") {
    std::cerr << kUsage;
    return 2;
  }
  std::string client = "CLIENT";
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--client" && i + 1 < args.size()) {
      client = args[++i];
    } else {
      std::cerr << kUsage;
      return 2;
    }
  }
  const std::string token = auth::newToken();
  if (token.empty()) {
    std::cerr << "mcpgate token new: OpenSSL's random generator failed\n";
    return 1;
  }
  // The token goes to the client and nowhere else; the config keeps only its hash.
  std::cout << token << "\n"
            << "# give the line above to the client; put this under auth.tokens:\n"
            << "- {client: " << client << ", sha256: " << common::toHex(common::sha256(token))
            << "}\n";
  return 0;
}

}  // namespace mcpgate::gateway
