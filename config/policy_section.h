#pragma once

// The `policies:` list (per server, tool and client: deny, rule actions,
// disabled rules, an argument size limit) and the `pins:` section (tool
// pinning) of the config file (config/ only). Rule ids and categories are
// checked against the loaded rules later, by the gateway's policy table,
// with the lines kept here.

#include <yaml-cpp/yaml.h>

#include <expected>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

// Glob match with `*` (any run, also empty) and `?` (one byte).
[[nodiscard]] bool globMatch(std::string_view pattern, std::string_view text);

[[nodiscard]] std::expected<void, Error> loadPoliciesSection(const detail::Reader& reader,
                                                             const detail::Entry& e,
                                                             std::vector<PolicyConfig>& policies);

[[nodiscard]] std::expected<void, Error> loadPinsSection(const detail::Reader& reader,
                                                         const detail::Entry& e, PinsConfig& pins);

// Once the whole file is read: a server pattern must match a configured
// server, so a typo does not silently leave a server without its policy.
[[nodiscard]] std::expected<void, Error> checkPolicyServers(const detail::Reader& reader,
                                                            const Config& config);

// "file:line" of a policy, for messages and `policy explain`.
[[nodiscard]] std::string policyWhere(const Config& config, const PolicyConfig& policy);

// The effective sections, for `mcpgate config check`.
void emitPolicies(YAML::Emitter& out, const std::vector<PolicyConfig>& policies);
void emitPins(YAML::Emitter& out, const PinsConfig& pins);

}  // namespace mcpgate::config
