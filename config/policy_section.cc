#include "config/policy_section.h"

#include <charconv>
#include <string>
#include <system_error>

#include "config/units.h"
#include "dlp/rule.h"

namespace mcpgate::config {
namespace {

using detail::Entry;
using detail::lineOf;
using detail::Reader;

constexpr std::string_view kActions = "one of log, warn, redact, block";

// What a pattern may hold: printable ASCII without spaces, and none of the
// characters that other glob dialects give a meaning we do not (classes,
// braces, escapes), so nobody believes `[ab]*` means what it does in a shell.
std::string globProblem(std::string_view pattern) {
  if (pattern.empty()) return "must not be empty (use \"*\" for any)";
  for (char c : pattern) {
    if (c <= ' ' || c > '~') return "holds a space or a character that is not printable ASCII";
    if (c == '[' || c == ']' || c == '{' || c == '}' || c == '\\') {
      return std::string("holds '") + c + "': only * and ? are glob characters here";
    }
  }
  return {};
}

std::string categoryNames() {
  std::string names;
  for (auto c : {dlp::Category::kSecret, dlp::Category::kPii, dlp::Category::kInjection,
                 dlp::Category::kCommand, dlp::Category::kCustom}) {
    names += (names.empty() ? "" : ", ") + std::string(dlp::toString(c));
  }
  return names;
}

class PolicyLoader {
 public:
  explicit PolicyLoader(const Reader& reader) : r_(reader) {}

  [[nodiscard]] std::expected<void, Error> loadList(const Entry& e,
                                                    std::vector<PolicyConfig>& policies) const {
    if (e.value.IsNull()) return {};
    if (!e.value.IsSequence()) {
      return r_.fail(e.line(), "policies must be a list of {match: {...}, ...} entries");
    }
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node item = e.value[i];
      const std::string path = "policies[" + std::to_string(i) + "]";
      PolicyConfig policy;
      policy.line = lineOf(item);
      if (!item.IsMap()) return r_.fail(policy.line, path + " must be a map with a 'match' key");
      auto done = loadPolicy(item, path, policy);
      if (!done) return done;
      policies.push_back(std::move(policy));
    }
    return {};
  }

 private:
  [[nodiscard]] std::expected<void, Error> loadPolicy(const YAML::Node& item,
                                                      const std::string& path,
                                                      PolicyConfig& policy) const {
    auto items = r_.entries(item, "in " + path);
    if (!items) return std::unexpected(items.error());
    bool has_match = false;
    for (const Entry& e : *items) {
      const std::string at = path + "." + e.key;
      std::expected<void, Error> done;
      if (e.key == "match") {
        has_match = true;
        done = loadMatch(e, at, policy);
      } else if (e.key == "deny") {
        auto flag = r_.scalar(e, at, "true or false");
        if (!flag) return std::unexpected(flag.error());
        if (*flag != "true" && *flag != "false")
          return r_.fail(e.line(), at + " must be true or false");
        policy.deny = *flag == "true";
      } else if (e.key == "actions") {
        done = loadActions(e, at, policy);
      } else if (e.key == "disable_rules") {
        done = loadDisabled(e, at, policy);
      } else if (e.key == "thresholds") {
        done = loadThresholds(e, at, policy);
      } else if (e.key == "max_argument_bytes") {
        auto text = r_.scalar(e, at, "a size such as 64KiB");
        if (!text) return std::unexpected(text.error());
        auto size = parseSize(*text);
        if (!size) return r_.fail(e.line(), at + " '" + *text + "' " + size.error());
        if (*size == 0) return r_.fail(e.line(), at + " must be greater than 0");
        policy.max_argument_bytes = *size;
      } else {
        done = r_.unknownKey(e, "in " + path,
                             {"match", "deny", "actions", "disable_rules", "thresholds",
                              "max_argument_bytes"});
      }
      if (!done) return done;
    }
    if (!has_match) {
      return r_.fail(policy.line, path +
                                      ": missing required key 'match' (e.g. match: {server: "
                                      "github, tool: \"create_*\"})");
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadMatch(const Entry& e, const std::string& path,
                                                     PolicyConfig& policy) const {
    if (!e.value.IsMap() && !e.value.IsNull()) {
      return r_.fail(e.line(), path + " must be a map of server, tool and client globs");
    }
    policy.server_line = e.line();
    auto items = r_.entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& m : *items) {
      const std::string at = path + "." + m.key;
      std::string* target = nullptr;
      if (m.key == "server") {
        target = &policy.server;
        policy.server_line = m.line();
      } else if (m.key == "tool") {
        target = &policy.tool;
      } else if (m.key == "client") {
        target = &policy.client;
      } else {
        return r_.unknownKey(m, "in " + path, {"server", "tool", "client"});
      }
      auto text = r_.scalar(m, at, "a glob such as \"create_*\"");
      if (!text) return std::unexpected(text.error());
      if (auto problem = globProblem(*text); !problem.empty()) {
        return r_.fail(m.line(), at + " '" + *text + "' " + problem);
      }
      *target = std::move(*text);
    }
    return {};
  }

  // "category:NAME" must name a category; anything else is a rule id, checked
  // against the loaded rules by the gateway.
  [[nodiscard]] std::expected<void, Error> checkTarget(const std::string& target, int line,
                                                       const std::string& path) const {
    if (target.empty())
      return r_.fail(line, path + ": a rule id or category:NAME must not be empty");
    if (target.starts_with("category:")) {
      const std::string name = target.substr(9);
      if (!dlp::parseCategory(name)) {
        return r_.fail(line, path + ": '" + target + "': unknown category '" + name + "' (one of " +
                                 categoryNames() + ")");
      }
    }
    return {};
  }

  [[nodiscard]] std::expected<dlp::Action, Error> action(const YAML::Node& node, int line,
                                                         const std::string& path) const {
    auto text = r_.scalar(node, line, path, kActions);
    if (!text) return std::unexpected(text.error());
    auto parsed = dlp::parseAction(*text);
    if (!parsed) return r_.fail(line, path + " '" + *text + "' must be " + std::string(kActions));
    return *parsed;
  }

  [[nodiscard]] std::expected<void, Error> loadActions(const Entry& e, const std::string& path,
                                                       PolicyConfig& policy) const {
    if (!e.value.IsMap()) {
      return r_.fail(e.line(), path +
                                   " must be a map from rule ids or category:NAME to actions "
                                   "such as {pii-email: log, category:injection: block}");
    }
    auto items = r_.entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& a : *items) {
      const std::string at = path + "." + a.key;
      if (auto ok = checkTarget(a.key, lineOf(a.key_node), path); !ok) return ok;
      PolicyRuleAction out{a.key, std::nullopt, std::nullopt, lineOf(a.key_node)};
      if (a.value.IsMap()) {
        // {request: block, response: log}: each direction on its own.
        auto sides = r_.entries(a.value, "in " + at);
        if (!sides) return std::unexpected(sides.error());
        for (const Entry& side : *sides) {
          if (side.key != "request" && side.key != "response") {
            return r_.unknownKey(side, "in " + at, {"request", "response"});
          }
          auto value = action(side.value, side.line(), at + "." + side.key);
          if (!value) return std::unexpected(value.error());
          (side.key == "request" ? out.request : out.response) = *value;
        }
        if (sides->empty()) return r_.fail(a.line(), at + " must set request, response or both");
      } else {
        auto value = action(a.value, a.line(), at);
        if (!value) return std::unexpected(value.error());
        out.request = *value;
        out.response = *value;
      }
      policy.actions.push_back(std::move(out));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadThresholds(const Entry& e, const std::string& path,
                                                          PolicyConfig& policy) const {
    if (!e.value.IsMap()) {
      return r_.fail(e.line(), path + " must be a map of detector id to score (e.g. " +
                                   "{injection-detector: 150})");
    }
    auto items = r_.entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& t : *items) {
      const std::string at = path + "." + t.key;
      auto text = r_.scalar(t, at, "a whole number");
      if (!text) return std::unexpected(text.error());
      int value = 0;
      const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
      if (ec != std::errc() || end != text->data() + text->size() || value < 1 ||
          value > static_cast<int>(dlp::kMaxWeight)) {
        return r_.fail(t.line(), at + " '" + *text + "' must be a whole number from 1 to " +
                                     std::to_string(dlp::kMaxWeight));
      }
      policy.thresholds.push_back({t.key, value, t.line()});
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadDisabled(const Entry& e, const std::string& path,
                                                        PolicyConfig& policy) const {
    if (!e.value.IsSequence()) {
      return r_.fail(e.line(), path + " must be a list of rule ids or category:NAME");
    }
    for (const YAML::Node& node : e.value) {
      auto text = r_.scalar(node, lineOf(node), path, "a list of rule ids or category:NAME");
      if (!text) return std::unexpected(text.error());
      if (auto ok = checkTarget(*text, lineOf(node), path); !ok) return ok;
      policy.disable_rules.push_back({std::move(*text), lineOf(node)});
    }
    return {};
  }

  const Reader& r_;
};

}  // namespace

bool globMatch(std::string_view pattern, std::string_view text) {
  // Iterative with one backtrack point: linear in practice, no recursion.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::expected<void, Error> loadPoliciesSection(const Reader& reader, const Entry& e,
                                               std::vector<PolicyConfig>& policies) {
  return PolicyLoader(reader).loadList(e, policies);
}

std::expected<void, Error> loadPinsSection(const Reader& reader, const Entry& e, PinsConfig& pins) {
  if (e.value.IsNull()) return {};
  if (!e.value.IsMap())
    return reader.fail(e.line(), "pins must be a map such as {on_change: hide}");
  auto items = reader.entries(e.value, "in pins");
  if (!items) return std::unexpected(items.error());
  for (const Entry& item : *items) {
    const std::string path = "pins." + item.key;
    if (item.key == "enabled") {
      auto flag = reader.scalar(item, path, "true or false");
      if (!flag) return std::unexpected(flag.error());
      if (*flag != "true" && *flag != "false") {
        return reader.fail(item.line(), path + " must be true or false");
      }
      pins.enabled = *flag == "true";
    } else if (item.key == "on_change") {
      auto word = reader.scalar(item, path, "hide or warn");
      if (!word) return std::unexpected(word.error());
      if (*word != "hide" && *word != "warn") {
        return reader.fail(item.line(), path + " '" + *word + "' must be hide or warn");
      }
      pins.on_change = *word == "hide" ? PinsConfig::OnChange::kHide : PinsConfig::OnChange::kWarn;
    } else {
      return reader.unknownKey(item, "in pins", {"enabled", "on_change"});
    }
  }
  return {};
}

std::expected<void, Error> checkPolicyServers(const Reader& reader, const Config& config) {
  for (std::size_t i = 0; i < config.policies.size(); ++i) {
    const PolicyConfig& policy = config.policies[i];
    bool any = false;
    for (const auto& [name, server] : config.servers) any = any || globMatch(policy.server, name);
    if (!any) {
      return reader.fail(policy.server_line, "policies[" + std::to_string(i) + "].match.server '" +
                                                 policy.server + "' matches no configured server");
    }
  }
  return {};
}

std::string policyWhere(const Config& config, const PolicyConfig& policy) {
  return config.source + ":" + std::to_string(policy.line);
}

void emitPolicies(YAML::Emitter& out, const std::vector<PolicyConfig>& policies) {
  out << YAML::BeginSeq;
  for (const PolicyConfig& policy : policies) {
    out << YAML::BeginMap;
    out << YAML::Key << "match" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "server" << YAML::Value << YAML::DoubleQuoted << policy.server;
    out << YAML::Key << "tool" << YAML::Value << YAML::DoubleQuoted << policy.tool;
    out << YAML::Key << "client" << YAML::Value << YAML::DoubleQuoted << policy.client;
    out << YAML::EndMap;
    out << YAML::Key << "deny" << YAML::Value << policy.deny;
    if (!policy.actions.empty()) {
      out << YAML::Key << "actions" << YAML::Value << YAML::BeginMap;
      for (const PolicyRuleAction& a : policy.actions) {
        out << YAML::Key << a.target << YAML::Value;
        if (a.request == a.response && a.request) {
          out << std::string(dlp::toString(*a.request));
        } else {
          out << YAML::Flow << YAML::BeginMap;
          if (a.request) {
            out << YAML::Key << "request" << YAML::Value << std::string(dlp::toString(*a.request));
          }
          if (a.response) {
            out << YAML::Key << "response" << YAML::Value
                << std::string(dlp::toString(*a.response));
          }
          out << YAML::EndMap;
        }
      }
      out << YAML::EndMap;
    }
    if (!policy.disable_rules.empty()) {
      out << YAML::Key << "disable_rules" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const PolicyRuleRef& ref : policy.disable_rules) out << ref.target;
      out << YAML::EndSeq;
    }
    if (!policy.thresholds.empty()) {
      out << YAML::Key << "thresholds" << YAML::Value << YAML::Flow << YAML::BeginMap;
      for (const PolicyThreshold& t : policy.thresholds) {
        out << YAML::Key << t.detector << YAML::Value << t.value;
      }
      out << YAML::EndMap;
    }
    if (policy.max_argument_bytes) {
      out << YAML::Key << "max_argument_bytes" << YAML::Value
          << formatSize(*policy.max_argument_bytes);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void emitPins(YAML::Emitter& out, const PinsConfig& pins) {
  out << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "enabled" << YAML::Value << pins.enabled;
  out << YAML::Key << "on_change" << YAML::Value
      << (pins.on_change == PinsConfig::OnChange::kHide ? "hide" : "warn");
  out << YAML::EndMap;
}

}  // namespace mcpgate::config
