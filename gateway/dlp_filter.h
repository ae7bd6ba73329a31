#pragma once

// DLP in the message path: every message in either direction is scanned with
// the compiled rules, and the strongest action of its findings decides what
// happens to it (block > redact > warn > log).

#include <expected>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/config.h"
#include "dlp/scanner.h"
#include "gateway/filter.h"

namespace mcpgate::gateway {

class DlpFilter final : public MessageFilter {
 public:
  // `request` and `response` are the policies of the two directions (the
  // config's default_action already applied).
  DlpFilter(std::shared_ptr<const dlp::RuleSet> rules, dlp::Policy request, dlp::Policy response);

  [[nodiscard]] Verdict onMessage(const MessageContext& context,
                                  nlohmann::json& message) const override;

 private:
  dlp::Scanner scanner_;
  dlp::Policy request_;
  dlp::Policy response_;
};

// The rules the config names, loaded and compiled (the database cached under
// <cache_dir>/hyperscan). An error names the rule file and line.
[[nodiscard]] std::expected<std::shared_ptr<const dlp::RuleSet>, std::string> loadDlpRules(
    const config::Config& config);

// The filters `serve` and `stdio` run on every message: DLP unless the config
// turns it off (then the chain is empty and no message is scanned). Loads and
// compiles the rules once, with the Hyperscan database cached under
// <cache_dir>/hyperscan. An error names the rule file and line.
[[nodiscard]] std::expected<std::shared_ptr<const FilterChain>, std::string> buildFilterChain(
    const config::Config& config);

}  // namespace mcpgate::gateway
