#include "gateway/upstream/egress_link.h"

#include <unistd.h>

#include <array>
#include <filesystem>
#include <mutex>

#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"

namespace mcpgate::gateway {
namespace {

namespace fs = std::filesystem;

struct OwnSlot {
  std::mutex mu;
  egress::OwnEndpoints own;
};

OwnSlot& ownSlot() {
  static OwnSlot* const slot = new OwnSlot();  // never destroyed: workers may run during exit
  return *slot;
}

void onDecision(const egress::ProxyEvent& e) {
  nlohmann::ordered_json fields;
  fields["host"] = e.host;
  fields["address"] = e.address.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.address);
  fields["port"] = e.port;
  fields["allowed"] = e.allowed;
  if (e.allowed) {
    fields["entry"] = e.entry;
  } else {
    fields["reason"] = e.reason;
  }
  audit::serverEvent("egress", e.allowed ? "egress allowed" : "egress refused", !e.allowed,
                     e.server, e.session, fields);
}

}  // namespace

void setOwnListeners(const std::vector<boost::asio::ip::tcp::endpoint>& endpoints) {
  egress::OwnEndpoints own;
  bool any = false;
  for (const auto& endpoint : endpoints) {
    auto ip = egress::parseIp(endpoint.address().to_string());
    if (!ip) continue;
    const bool wildcard = endpoint.address().is_unspecified();
    any = any || wildcard;
    own.listeners.push_back({*ip, endpoint.port(), wildcard});
  }
  if (any) own.local_addresses = egress::hostAddresses();
  std::lock_guard lock(ownSlot().mu);
  ownSlot().own = std::move(own);
}

std::vector<std::uint16_t> ownListenerPorts() {
  std::vector<std::uint16_t> ports;
  std::lock_guard lock(ownSlot().mu);
  for (const auto& l : ownSlot().own.listeners) ports.push_back(l.port);
  return ports;
}

std::shared_ptr<const egress::ProxySettings> egressSettings(const sandbox::SandboxPolicy& policy,
                                                            const std::string& server,
                                                            const std::string& session) {
  auto settings = std::make_shared<egress::ProxySettings>();
  settings->server = server;
  settings->session = session;
  for (const std::string& text : policy.allow) {
    // Checked when the config was loaded: an entry that no longer parses is dropped (closed).
    if (auto entry = egress::parseAllowEntry(text)) settings->allow.push_back(std::move(*entry));
  }
  {
    std::lock_guard lock(ownSlot().mu);
    settings->own = ownSlot().own;
  }
  settings->on_decision = onDecision;
  return settings;
}

std::string nodeProxyDir() {
  std::array<char, 4096> exe{};
  const ssize_t n = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n <= 0) return {};
  const fs::path dir =
      fs::path(std::string(exe.data(), static_cast<std::size_t>(n))).parent_path().parent_path() /
      "share/mcpgate/egress-node";
  std::error_code ec;
  if (!fs::exists(dir / "env-proxy.cjs", ec) ||
      !fs::exists(dir / "node_modules/undici/package.json", ec)) {
    return {};
  }
  return fs::weakly_canonical(dir, ec).string();
}

}  // namespace mcpgate::gateway
