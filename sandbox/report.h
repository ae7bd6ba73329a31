#pragma once

// What one spawn enforced, what it had to leave out (and why), and what the
// operator should know: logged as one JSON line per spawn.

#include <string>
#include <utility>
#include <vector>

namespace mcpgate::sandbox {

struct LayerReport {
  std::vector<std::string> enforced;
  std::vector<std::pair<std::string, std::string>> degraded;  // layer, reason
  std::vector<std::string> noted;

  // {"sandbox":{"server":..,"enforced":[..],"degraded":[{"layer":..,"reason":..}],"noted":[..]}}
  [[nodiscard]] std::string toJson(const std::string& server) const;
};

[[nodiscard]] std::string jsonString(const std::string& s);

// network: host: one call the supervisor refused (socket_notify.h), as the
// gateway turns it into an egress audit record:
// {"egress":{"server":..,"address":..,"port":..,"allowed":false,"reason":..}}
[[nodiscard]] std::string egressRefusalJson(const std::string& server, const std::string& address,
                                            unsigned port, const std::string& reason);

}  // namespace mcpgate::sandbox
