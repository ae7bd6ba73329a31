#pragma once

// DLP in the message path: every message in either direction is scanned with
// the compiled rules, and the strongest action of its findings decides what
// happens to it (block > redact > warn > log).

#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "config/config.h"
#include "dlp/scanner.h"
#include "gateway/guard/filter.h"
#include "gateway/guard/policy.h"

namespace mcpgate::gateway {

class DlpFilter final : public MessageFilter {
 public:
  // `policies` gives the rule actions and disabled rules of each message's
  // server, tool and client (the config's default_action already applied).
  DlpFilter(std::shared_ptr<const dlp::RuleSet> rules, std::shared_ptr<const PolicyTable> policies);

  [[nodiscard]] Verdict onMessage(const MessageContext& context,
                                  mcp::Message& message) const override;

 private:
  // A tools/list result whose blocking findings all lie inside tool
  // definitions (a poisoned description): the indices of those tools, which
  // are dropped (and audited) so the rest of the list still reaches the
  // client; empty when any blocking finding lies elsewhere.
  [[nodiscard]] static std::set<std::size_t> poisonedTools(const dlp::Findings& findings);
  static void dropTools(const MessageContext& context, nlohmann::json& message,
                        const dlp::Findings& findings, const std::set<std::size_t>& poisoned);

  dlp::Scanner scanner_;
  std::shared_ptr<const PolicyTable> policies_;
};

// The rules the config names, loaded and compiled (the database cached under
// <cache_dir>/hyperscan). An error names the rule file and line.
[[nodiscard]] std::expected<std::shared_ptr<const dlp::RuleSet>, std::string> loadDlpRules(
    const config::Config& config);

// The rules (null when the config turns DLP off) and the per-tool policy
// table built on them: what `serve`, `stdio`, `config check` and `policy
// explain` all load. An error names the file and line.
struct RulesAndPolicies {
  std::shared_ptr<const dlp::RuleSet> rules;
  std::shared_ptr<const PolicyTable> policies;
};
[[nodiscard]] std::expected<RulesAndPolicies, std::string> loadRulesAndPolicies(
    const config::Config& config);

// The filters `serve` and `stdio` run on every message: per-tool policy and
// tool pinning (when the config has policies or pinning is on), then DLP
// unless the config turns it off. Opens the pin store under state_dir. Loads and
// compiles the rules once, with the Hyperscan database cached under
// <cache_dir>/hyperscan. An error names the rule file and line.
[[nodiscard]] std::expected<std::shared_ptr<const FilterChain>, std::string> buildFilterChain(
    const config::Config& config);

}  // namespace mcpgate::gateway
