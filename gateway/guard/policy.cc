#include "gateway/guard/policy.h"

#include <algorithm>

#include "config/policy_section.h"
#include "dlp/rule_set.h"

namespace mcpgate::gateway {

namespace {

constexpr std::size_t kCacheLimit = 4096;

// The rules a target names: one rule by id, or every rule of a category.
std::vector<const dlp::Rule*> rulesOf(const dlp::RuleSet& rules, const std::string& target) {
  std::vector<const dlp::Rule*> out;
  if (target.starts_with("category:")) {
    const auto category = dlp::parseCategory(std::string_view(target).substr(9));
    for (const dlp::Rule& rule : rules.rules()) {
      if (category && rule.category == *category) out.push_back(&rule);
    }
  } else if (const dlp::Rule* rule = rules.find(target)) {
    out.push_back(rule);
  }
  return out;
}

std::string noRuleMessage(const dlp::RuleSet& rules, const std::string& target) {
  if (target.starts_with("category:")) return "no loaded rule is in " + target;
  std::string message = "no loaded rule has the id '" + target + "'";
  // A likely typo: the nearest id by a cheap measure (shared prefix length).
  const dlp::Rule* nearest = nullptr;
  std::size_t best = 0;
  for (const dlp::Rule& rule : rules.rules()) {
    const auto mismatch = std::ranges::mismatch(rule.id, target);
    const auto common = static_cast<std::size_t>(mismatch.in1 - rule.id.begin());
    if (common > best) {
      best = common;
      nearest = &rule;
    }
  }
  if (nearest != nullptr && best >= 3) message += " (did you mean '" + nearest->id + "'?)";
  return message;
}

struct Specificity {
  int fields = 0;            // fields that are not "*"
  std::size_t literals = 0;  // characters that are not * or ?
  auto operator<=>(const Specificity&) const = default;
};

Specificity specificityOf(const config::PolicyConfig& policy) {
  Specificity s;
  for (const std::string* pattern : {&policy.server, &policy.tool, &policy.client}) {
    if (*pattern != "*") ++s.fields;
    s.literals += static_cast<std::size_t>(
        std::ranges::count_if(*pattern, [](char c) { return c != '*' && c != '?'; }));
  }
  return s;
}

bool matchesTriple(const config::PolicyConfig& policy, std::string_view server,
                   std::string_view tool, std::string_view client) {
  return config::globMatch(policy.server, server) && config::globMatch(policy.tool, tool) &&
         config::globMatch(policy.client, client);
}

}  // namespace

std::expected<std::shared_ptr<const PolicyTable>, std::string> PolicyTable::build(
    const config::Config& config, const std::shared_ptr<const dlp::RuleSet>& rules) {
  std::shared_ptr<PolicyTable> table(new PolicyTable());
  // Sorted once, most specific first; stable, so file order breaks ties.
  table->policies_ = config.policies;
  std::ranges::stable_sort(table->policies_, [](const auto& a, const auto& b) {
    return specificityOf(a) > specificityOf(b);
  });

  auto base = [&](const std::optional<dlp::Action>& action,
                  const std::optional<dlp::Action>& unscanned) {
    dlp::Policy policy;
    // What could not be decoded within the limits: blocked unless the operator says otherwise.
    policy.unscanned = unscanned.value_or(dlp::Action::kBlock);
    policy.max_decoded_bytes = config.dlp.max_decoded_bytes;
    policy.max_decoded_bytes_per_message = config.dlp.max_decoded_bytes_per_message;
    if (rules && action) {
      for (const dlp::Rule& rule : rules->rules()) policy.actions.emplace(rule.id, *action);
    }
    return policy;
  };
  table->defaults_.request = base(config.dlp.request_action, config.dlp.unscanned_request);
  table->defaults_.response = base(config.dlp.response_action, config.dlp.unscanned_response);

  for (const config::PolicyConfig& policy : table->policies_) {
    EffectivePolicy effective = table->defaults_;
    effective.where = config::policyWhere(config, policy);
    effective.deny = policy.deny;
    effective.max_argument_bytes = policy.max_argument_bytes;
    if (rules) {
      auto fail = [&](int line, const std::string& what, const std::string& target) {
        return std::unexpected(config.source + ":" + std::to_string(line) +
                               ": policies entry at line " + std::to_string(policy.line) + ": " +
                               what + ": " + noRuleMessage(*rules, target));
      };
      // Categories first, so a rule named by its id overrides its category
      // whatever the order in the file.
      for (bool categories : {true, false}) {
        for (const config::PolicyRuleAction& action : policy.actions) {
          if (action.target.starts_with("category:") != categories) continue;
          const auto named = rulesOf(*rules, action.target);
          if (named.empty()) return fail(action.line, "actions", action.target);
          for (const dlp::Rule* rule : named) {
            if (action.request) effective.request.actions[rule->id] = *action.request;
            if (action.response) effective.response.actions[rule->id] = *action.response;
          }
        }
      }
      for (const config::PolicyThreshold& t : policy.thresholds) {
        const dlp::Rule* detector = rules->find(t.detector);
        if (detector == nullptr || !detector->is_detector) {
          return std::unexpected(config.source + ":" + std::to_string(t.line) +
                                 ": policies entry at line " + std::to_string(policy.line) +
                                 ": thresholds: no loaded detector has the id '" + t.detector +
                                 "'");
        }
        effective.request.thresholds[t.detector] = t.value;
        effective.response.thresholds[t.detector] = t.value;
      }
      for (const config::PolicyRuleRef& ref : policy.disable_rules) {
        const auto named = rulesOf(*rules, ref.target);
        if (named.empty()) return fail(ref.line, "disable_rules", ref.target);
        for (const dlp::Rule* rule : named) {
          effective.request.disabled.insert(rule->id);
          effective.response.disabled.insert(rule->id);
        }
      }
    }
    table->entries_.push_back(std::move(effective));
  }
  for (std::size_t i = 0; i < table->entries_.size(); ++i) {
    table->entries_[i].source = &table->policies_[i];
  }
  return table;
}

std::size_t PolicyTable::lookup(std::string_view server, std::string_view tool,
                                std::string_view client) const {
  for (std::size_t i = 0; i < policies_.size(); ++i) {
    if (matchesTriple(policies_[i], server, tool, client)) return i;
  }
  return std::string::npos;
}

const EffectivePolicy& PolicyTable::resolve(std::string_view server, std::string_view tool,
                                            std::string_view client) const {
  if (policies_.empty()) return defaults_;
  // NUL cannot occur in a server name or a glob-matched client name from
  // auth; in a tool name it would only make a distinct key, never a clash
  // that matters, since the lengths are part of the key.
  std::string key = std::to_string(server.size()) + ":" + std::to_string(tool.size()) + ":";
  key.append(server).append(tool).append(client);
  std::size_t index = std::string::npos;
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      index = it->second;
    } else {
      index = lookup(server, tool, client);
      if (cache_.size() >= kCacheLimit) cache_.clear();
      cache_.emplace(std::move(key), index);
    }
  }
  return index == std::string::npos ? defaults_ : entries_[index];
}

std::vector<const EffectivePolicy*> PolicyTable::matches(std::string_view server,
                                                         std::string_view tool,
                                                         std::string_view client) const {
  std::vector<const EffectivePolicy*> out;
  for (std::size_t i = 0; i < policies_.size(); ++i) {
    if (matchesTriple(policies_[i], server, tool, client)) out.push_back(&entries_[i]);
  }
  return out;
}

}  // namespace mcpgate::gateway
