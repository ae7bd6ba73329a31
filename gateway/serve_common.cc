#include "gateway/serve_common.h"

#include <boost/asio/ip/address.hpp>
#include <iostream>

#include "gateway/log.h"

namespace mcpgate::gateway {

std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path) {
  auto config = config::loadConfig(path);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return std::unexpected(config.error().message);
  }
  (void)log::setLevel((*config)->log_level);
  return *config;
}

bool isLoopbackHost(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

}  // namespace mcpgate::gateway
