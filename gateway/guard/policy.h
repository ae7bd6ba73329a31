#pragma once

// Per-tool policy, compiled: the config's `policies:` resolved against the
// loaded rules into one effective policy per entry, and the lookup of the
// entry that governs a (server, tool, client) triple.
//
// Most specific wins: the entry with the most fields that are not "*", then
// the most literal (non-wildcard) characters over its three patterns, then
// the first in the file. Entries do not merge: the winner's settings are the
// effective ones and what it leaves unset takes the defaults. With no entry
// matching, the defaults apply (dlp.default_action, rule defaults, no deny,
// no size limit).

#include <cstdint>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/config.h"
#include "dlp/scanner.h"
#include "gateway/mcp/message.h"
#include "gateway/mcp/message_context.h"

namespace mcpgate::gateway {

struct EffectivePolicy {
  const config::PolicyConfig* source = nullptr;  // null: no entry matched
  std::string where;                             // "file:line" of `source`
  bool deny = false;
  std::optional<std::uint64_t> max_argument_bytes;
  dlp::Policy request;  // what DLP applies to messages to the server
  dlp::Policy response;
};

class PolicyTable {
 public:
  // `rules` may be null (DLP off): actions and disable_rules are then not
  // checked against rules and have nothing to act on. An error names the
  // config file and line of the entry.
  [[nodiscard]] static std::expected<std::shared_ptr<const PolicyTable>, std::string> build(
      const config::Config& config, const std::shared_ptr<const dlp::RuleSet>& rules);

  // The effective policy for one message; `tool` is empty for messages that
  // name no tool (then only entries whose tool glob matches "" apply, as "*").
  [[nodiscard]] const EffectivePolicy& resolve(std::string_view server, std::string_view tool,
                                               std::string_view client) const;

  // The effective policy of a message on its way (`context` names its
  // server, tool and client): resolved the first time, then kept in the
  // message, so the filters after the first and its response (which the
  // session hands the request's) do not resolve it again.
  [[nodiscard]] const EffectivePolicy& of(const MessageContext& context,
                                          mcp::Message& message) const {
    if (message.policy == nullptr) {
      message.policy = &resolve(context.server, context.tool, context.client);
    }
    return *message.policy;
  }

  // Every entry that matches, most specific first (for `policy explain`).
  [[nodiscard]] std::vector<const EffectivePolicy*> matches(std::string_view server,
                                                            std::string_view tool,
                                                            std::string_view client) const;

  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  PolicyTable() = default;
  [[nodiscard]] std::size_t lookup(std::string_view server, std::string_view tool,
                                   std::string_view client) const;

  std::vector<config::PolicyConfig> policies_;
  // entries_[i] for policies_[i]; defaults_ when none matches.
  std::vector<EffectivePolicy> entries_;
  EffectivePolicy defaults_;
  // (server, tool, client) -> index into entries_, or npos for the defaults.
  // Tool names come from clients, so the cache is bounded (cleared when full).
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::size_t> cache_;
};

}  // namespace mcpgate::gateway
