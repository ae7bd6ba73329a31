#include "sandbox/report.h"

#include <cstdio>

namespace mcpgate::sandbox {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string LayerReport::toJson(const std::string& server) const {
  auto list = [](const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + jsonString(items[i]);
    return out + "]";
  };
  std::string degraded_json = "[";
  for (std::size_t i = 0; i < degraded.size(); ++i) {
    degraded_json += std::string(i ? "," : "") + "{\"layer\":" + jsonString(degraded[i].first) +
                     ",\"reason\":" + jsonString(degraded[i].second) + "}";
  }
  degraded_json += "]";
  return "{\"sandbox\":{\"server\":" + jsonString(server) + ",\"enforced\":" + list(enforced) +
         ",\"degraded\":" + degraded_json + ",\"noted\":" + list(noted) + "}}";
}

std::string egressRefusalJson(const std::string& server, const std::string& address, unsigned port,
                              const std::string& reason) {
  return "{\"egress\":{\"server\":" + jsonString(server) + ",\"address\":" + jsonString(address) +
         ",\"port\":" + std::to_string(port) +
         ",\"allowed\":false,\"reason\":" + jsonString(reason) + "}}";
}

}  // namespace mcpgate::sandbox
