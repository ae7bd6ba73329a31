// mcpgate policy explain -c FILE --server S [--tool T] [--client C]
// mcpgate pins list -c FILE [SERVER]
// mcpgate pins approve -c FILE SERVER [TOOL]...

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "config/config.h"
#include "dlp/rule_set.h"
#include "gateway/cli/cli.h"
#include "gateway/guard/dlp_filter.h"
#include "gateway/guard/pins.h"
#include "gateway/guard/policy.h"

namespace mcpgate::gateway {

namespace {

constexpr const char* kExplainUsage =
    "usage: mcpgate policy explain -c FILE --server S [--tool T] [--client C]\n";
constexpr const char* kPinsUsage =
    "usage: mcpgate pins list -c FILE [SERVER]\n"
    "       mcpgate pins approve -c FILE SERVER [TOOL]...\n";

std::string actionText(const dlp::Rule& rule, const dlp::Policy& policy, dlp::Direction direction) {
  if (!rule.appliesTo(direction)) return "-";
  if (policy.disabled.contains(rule.id)) return "disabled";
  auto it = policy.actions.find(rule.id);
  return std::string(dlp::toString(it == policy.actions.end() ? rule.action : it->second));
}

void printTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

}  // namespace

int runPolicyExplain(Args args) {
  std::string config_path, server, tool, client;
  bool has_server = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-c" || a == "--config") && has_value) {
      config_path = args[++i];
    } else if (a == "--server" && has_value) {
      server = args[++i];
      has_server = true;
    } else if (a == "--tool" && has_value) {
      tool = args[++i];
    } else if (a == "--client" && has_value) {
      client = args[++i];
    } else {
      std::cerr << kExplainUsage;
      return 2;
    }
  }
  if (config_path.empty() || !has_server) {
    std::cerr << kExplainUsage;
    return 2;
  }
  auto config = config::loadConfig(config_path);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  if (!(*config)->servers.contains(server)) {
    std::cerr << "mcpgate policy explain: no server '" << server << "' in " << config_path << "\n";
    return 1;
  }
  auto loaded = loadRulesAndPolicies(**config);
  if (!loaded) {
    std::cerr << loaded.error() << "\n";
    return 1;
  }
  const auto& [rules, table] = *loaded;
  const EffectivePolicy& policy = table->resolve(server, tool, client);
  std::cout << "server: " << server << "\n";
  std::cout << "tool:   " << (tool.empty() ? "(none: messages that name no tool)" : tool) << "\n";
  std::cout << "client: " << (client.empty() ? "(none: no auth)" : client) << "\n";
  if (policy.source == nullptr) {
    std::cout << "policy: no policy matched: defaults\n";
  } else {
    std::cout << "policy: " << policy.where << "  match {server: \"" << policy.source->server
              << "\", tool: \"" << policy.source->tool << "\", client: \"" << policy.source->client
              << "\"}\n";
    for (const EffectivePolicy* other : table->matches(server, tool, client)) {
      if (other != &policy)
        std::cout << "        also matches, not applied: " << other->where << "\n";
    }
  }
  std::cout << "deny: " << (policy.deny ? "yes (hidden from tools/list, calls refused)" : "no")
            << "\n";
  std::cout << "max_argument_bytes: "
            << (policy.max_argument_bytes ? std::to_string(*policy.max_argument_bytes)
                                          : std::string("no limit"))
            << "\n";
  if (!rules) {
    std::cout << "DLP: disabled by the config\n";
    return 0;
  }
  std::cout << "\n";
  std::vector<std::vector<std::string>> rows = {{"RULE", "CATEGORY", "REQUEST", "RESPONSE"}};
  for (const dlp::Rule& rule : rules->rules()) {
    rows.push_back({rule.id, std::string(dlp::toString(rule.category)),
                    actionText(rule, policy.request, dlp::Direction::kRequest),
                    actionText(rule, policy.response, dlp::Direction::kResponse)});
  }
  printTable(rows);
  std::cout << "(- : the rule does not scan that direction)\n";
  return 0;
}

int runPins(Args args) {
  if (args.empty() ||
      (std::string_view(args[0]) != "list" && std::string_view(args[0]) != "approve")) {
    std::cerr << kPinsUsage;
    return 2;
  }
  const bool approve = std::string_view(args[0]) == "approve";
  std::string config_path;
  std::vector<std::string> names;  // SERVER [TOOL]...
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if ((a == "-c" || a == "--config") && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (a.starts_with("-")) {
      std::cerr << kPinsUsage;
      return 2;
    } else {
      names.emplace_back(a);
    }
  }
  if (config_path.empty() || (approve && names.empty()) || (!approve && names.size() > 1)) {
    std::cerr << kPinsUsage;
    return 2;
  }
  auto config = config::loadConfig(config_path);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 1;
  }
  if (!names.empty() && !(*config)->servers.contains(names[0])) {
    std::cerr << "mcpgate pins: no server '" << names[0] << "' in " << config_path << "\n";
    return 1;
  }
  auto store = PinStore::open((*config)->state_dir);
  if (!store) {
    std::cerr << "mcpgate pins: " << store.error() << "\n";
    return 1;
  }
  if (approve) {
    const std::vector<std::string> tools(names.begin() + 1, names.end());
    auto approved = (*store)->approve(names[0], tools);
    if (!approved) {
      std::cerr << "mcpgate pins approve: " << approved.error() << "\n";
      return 1;
    }
    if (approved->empty()) {
      std::cout << "nothing to approve for server '" << names[0] << "'\n";
    } else {
      for (const std::string& name : *approved) {
        std::cout << "approved " << names[0] << " " << name << "\n";
      }
    }
    return 0;
  }
  const std::vector<std::string> servers = names.empty() ? (*store)->servers() : names;
  std::vector<std::vector<std::string>> rows = {{"SERVER", "TOOL", "STATUS", "HASH"}};
  for (const std::string& server : servers) {
    auto pins = (*store)->read(server);
    if (!pins) {
      std::cerr << "mcpgate pins list: " << pins.error() << "\n";
      return 1;
    }
    if (!*pins) continue;
    for (const auto& [tool, pin] : **pins) {
      const std::string& hash = pin.pending.empty() ? pin.pinned : pin.pending;
      rows.push_back({server, tool, std::string(pin.status()), hash.substr(0, 16)});
    }
  }
  if (rows.size() == 1) {
    std::cout << "no pins yet in " << (*store)->dir() << "\n";
    return 0;
  }
  printTable(rows);
  return 0;
}

}  // namespace mcpgate::gateway
