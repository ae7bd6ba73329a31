#include "gateway/guard/dlp_filter.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <vector>

#include "dlp/redact.h"
#include "dlp/rule_set.h"
#include "gateway/guard/policy_filter.h"
#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"

namespace mcpgate::gateway {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

dlp::Direction dlpDirection(Direction direction) {
  return direction == Direction::kToServer ? dlp::Direction::kRequest : dlp::Direction::kResponse;
}

// The matched text, for its masked preview only; empty if it cannot be found
// again (then the preview is empty too, which is the safe side).
std::string matchedText(const json& message, const dlp::Finding& finding) {
  try {
    const json::json_pointer pointer(finding.pointer);
    std::string owned;      // a key, or an integer's text
    std::string_view text;  // a string value is read in place: a long one has many findings
    if (finding.in_key) {
      owned = pointer.back();
      text = owned;
    } else {
      const json& value = message.at(pointer);
      if (value.is_number_integer()) {
        owned = value.dump();  // long integers are scanned as their text
        text = owned;
      } else if (value.is_string()) {
        text = value.get_ref<const std::string&>();
      } else {
        return {};
      }
    }
    if (finding.start >= finding.end || finding.end > text.size()) return {};
    return std::string(text.substr(finding.start, finding.end - finding.start));
  } catch (const json::exception&) {
    return {};
  }
}

Verdict blocked(const MessageContext& context, const std::vector<std::string>& rules,
                std::string_view why) {
  const std::string_view direction = dlp::toString(dlpDirection(context.direction));
  Verdict verdict;
  verdict.action = Verdict::Action::kReject;
  verdict.code = jsonrpc::kDlpBlocked;
  verdict.message = "blocked by DLP: " + std::string(why);
  verdict.data = {{"reason", "dlp_blocked"}, {"direction", direction}, {"rules", rules}};
  return verdict;
}

// A redaction in "id", "method" or "jsonrpc" would break the exchange itself
// (the answer could not be matched to its request), so such a message is
// blocked instead: the sender gets a clear error rather than a hang.
// The index N of a pointer into /result/tools/N of a tools/list result.
std::optional<std::size_t> toolIndex(std::string_view pointer) {
  constexpr std::string_view kPrefix = "/result/tools/";
  if (!pointer.starts_with(kPrefix)) return std::nullopt;
  pointer.remove_prefix(kPrefix.size());
  const std::size_t end = std::min(pointer.find('/'), pointer.size());
  if (end == 0 || end > 9) return std::nullopt;
  std::size_t index = 0;
  for (char c : pointer.substr(0, end)) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

// The object keys that are findings themselves (in_key), unescaped.
std::set<std::string> secretKeys(const dlp::Findings& findings) {
  std::set<std::string> keys;
  for (const dlp::Finding& finding : findings.items) {
    if (!finding.in_key) continue;
    try {
      keys.insert(json::json_pointer(finding.pointer).back());
    } catch (const json::exception&) {
      // not a pointer with a last token: nothing to hide
    }
  }
  return keys;
}

// A finding as the audit trail may hold it: its pointer names the keys on its
// path, and a key that is itself a finding would put the secret in the log,
// so such a key is shown masked.
dlp::Finding auditable(const dlp::Finding& finding, const std::set<std::string>& secret_keys) {
  dlp::Finding out = finding;
  if (secret_keys.empty()) return out;
  out.pointer.clear();
  std::size_t at = 1;
  while (at <= finding.pointer.size() && !finding.pointer.empty()) {
    std::size_t next = finding.pointer.find('/', at);
    if (next == std::string::npos) next = finding.pointer.size();
    const std::string raw = finding.pointer.substr(at, next - at);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        token += raw[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        token += raw[i];
      }
    }
    out.pointer += '/';
    if (secret_keys.contains(token)) {
      for (char c : dlp::maskedPreview(token)) {
        out.pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      }
    } else {
      out.pointer += raw;
    }
    at = next + 1;
  }
  return out;
}

const dlp::Finding* inRoutingMember(const dlp::Findings& findings) {
  for (const dlp::Finding& finding : findings.items) {
    if (finding.action < dlp::Action::kRedact) continue;
    if (finding.pointer == "/id" || finding.pointer == "/method" || finding.pointer == "/jsonrpc" ||
        (finding.in_key && finding.pointer.find('/', 1) == std::string::npos)) {
      return &finding;
    }
  }
  return nullptr;
}

// Cache directory for the compiled database, or empty when it cannot be made
// or is not safe: compiling every start is slow but correct, so that is only
// a warning. A database swapped in by someone else would change what DLP
// finds, so the directory must be ours and writable by no one else.
fs::path hyperscanCache(const std::string& cache_dir) {
  const fs::path dir = fs::path(cache_dir) / "hyperscan";
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (!ec && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    ec = std::error_code(errno, std::generic_category());
  }
  std::string problem = ec ? ec.message() : "";
  struct stat st {};
  if (problem.empty() && ::lstat(dir.c_str(), &st) != 0) {
    problem = std::error_code(errno, std::generic_category()).message();
  }
  if (problem.empty() && !S_ISDIR(st.st_mode)) problem = "not a directory";
  if (problem.empty() && (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)) {
    problem = "owned by another user or writable by others";
  }
  if (!problem.empty()) {
    log::warn("cannot use the DLP rule cache; compiling the rules without it",
              {{"dir", dir.string()}, {"error", problem}});
    return {};
  }
  return dir;
}

}  // namespace

DlpFilter::DlpFilter(std::shared_ptr<const dlp::RuleSet> rules,
                     std::shared_ptr<const PolicyTable> policies)
    : scanner_(std::move(rules)), policies_(std::move(policies)) {}

Verdict DlpFilter::onMessage(const MessageContext& context, mcp::Message& parsed) const {
  json& message = parsed.value;
  const dlp::Direction direction = dlpDirection(context.direction);
  const EffectivePolicy& policy = policies_->of(context, parsed);
  dlp::Findings findings = scanner_.scan(
      message, direction, direction == dlp::Direction::kRequest ? policy.request : policy.response);
  if (findings.failed) {
    log::error("DLP scan failed; message blocked", {{"server", context.server},
                                                    {"session", context.session},
                                                    {"direction", dlp::toString(direction)}});
    return blocked(context, {}, "the message could not be scanned");
  }
  if (findings.empty()) return {};
  if (findings.strongest() == dlp::Action::kBlock && context.direction == Direction::kToClient &&
      context.request_method == "tools/list") {
    if (auto poisoned = poisonedTools(findings); !poisoned.empty()) {
      dropTools(context, message, findings, poisoned);
      // What is left is scanned (and audited) as a message of its own.
      Verdict rest = onMessage(context, parsed);
      rest.modified = true;
      return rest;
    }
  }

  const std::string_view method = parsed.method.empty() ? context.request_method : parsed.method;
  std::vector<std::string> blocking;
  const std::set<std::string> secret_keys = secretKeys(findings);
  std::size_t logged = 0;
  for (const dlp::Finding& finding : findings.items) {
    if (logged < audit::kFindingLinesPerMessage) {
      ++logged;
      const std::string matched = matchedText(message, finding);
      audit::finding(context, method, auditable(finding, secret_keys), dlp::maskedPreview(matched),
                     matched);
    } else {
      audit::findingCounted(finding);
    }
    if (finding.action == dlp::Action::kBlock &&
        std::ranges::find(blocking, finding.rule->id) == blocking.end()) {
      blocking.push_back(finding.rule->id);
    }
  }

  if (logged < findings.items.size()) {
    audit::findingsOverCap(context, method, findings.items.size() - logged, findings.items.size());
  }
  if (!findings.unscanned.empty()) {
    const std::string_view direction_name = dlp::toString(direction);
    if (findings.unscanned_action == dlp::Action::kBlock && blocking.empty()) {
      // Named apart from a rule's match: the sender learns which limit to raise.
      Verdict verdict = blocked(context, blocking,
                                "the " + std::string(direction_name) +
                                    " could not be fully scanned: " + findings.unscanned +
                                    "; raise the dlp limit or set dlp.unscanned_action");
      verdict.data["reason"] = "dlp_unscanned";
      verdict.data["unscanned"] = findings.unscanned;
      audit::decision(context, method, "dlp_unscanned", verdict.message);
      return verdict;
    }
    if (findings.unscanned_action != dlp::Action::kBlock) {
      log::warn("DLP could not scan all of a message; passed as dlp.unscanned_action says",
                {{"server", context.server},
                 {"session", context.session},
                 {"direction", direction_name},
                 {"unscanned", findings.unscanned},
                 {"action", dlp::toString(findings.unscanned_action)}});
    }
  }

  switch (findings.strongest()) {
    case dlp::Action::kBlock: {
      std::string why = "the " + std::string(dlp::toString(direction)) + " matched ";
      for (std::size_t i = 0; i < blocking.size(); ++i) why += (i ? ", " : "") + blocking[i];
      return blocked(context, blocking, why);
    }
    case dlp::Action::kRedact: {
      if (const dlp::Finding* routing = inRoutingMember(findings)) {
        return blocked(context, {routing->rule->id},
                       "the " + std::string(dlp::toString(direction)) + " matched " +
                           routing->rule->id + " in " + routing->pointer +
                           ", which cannot be redacted");
      }
      auto redacted = dlp::redact(message, findings);
      if (!redacted) {
        // The message may be half rewritten: nothing of it may go out.
        log::error("DLP redaction failed; message blocked", {{"server", context.server},
                                                             {"session", context.session},
                                                             {"error", redacted.error().message}});
        return blocked(context, {}, "the message could not be redacted");
      }
      Verdict verdict;
      verdict.modified = *redacted > 0;
      return verdict;
    }
    case dlp::Action::kWarn:
    case dlp::Action::kLog:
      return {};
  }
  return {};
}

std::set<std::size_t> DlpFilter::poisonedTools(const dlp::Findings& findings) {
  std::set<std::size_t> indices;
  for (const dlp::Finding& finding : findings.items) {
    if (finding.action != dlp::Action::kBlock) continue;
    auto index = toolIndex(finding.pointer);
    if (!index) return {};  // a block outside the tools: the whole message is blocked
    indices.insert(*index);
  }
  return indices;
}

void DlpFilter::dropTools(const MessageContext& context, json& message,
                          const dlp::Findings& findings, const std::set<std::size_t>& poisoned) {
  json& tools = message["result"]["tools"];
  std::map<std::size_t, std::vector<std::string>> rules;  // tool index -> blocking rule ids
  const std::set<std::string> secret_keys = secretKeys(findings);
  for (const dlp::Finding& finding : findings.items) {
    auto index = toolIndex(finding.pointer);
    if (!index || !poisoned.contains(*index)) continue;
    const std::string matched = matchedText(message, finding);
    MessageContext about = context;
    const json& tool = tools.at(*index);
    const std::string name = tool.is_object() ? tool.value("name", "") : "";
    about.tool = name;
    audit::finding(about, "tools/list", auditable(finding, secret_keys),
                   dlp::maskedPreview(matched), matched);
    auto& ids = rules[*index];
    if (finding.action == dlp::Action::kBlock &&
        std::ranges::find(ids, finding.rule->id) == ids.end()) {
      ids.push_back(finding.rule->id);
    }
  }
  for (auto it = poisoned.rbegin(); it != poisoned.rend(); ++it) {
    const json& tool = tools.at(*it);
    const std::string name = tool.is_object() ? tool.value("name", "") : "";
    MessageContext about = context;
    about.tool = name;
    std::string why = "tool '" + name + "' hidden: its definition matched ";
    for (std::size_t i = 0; i < rules[*it].size(); ++i) why += (i ? ", " : "") + rules[*it][i];
    audit::decision(about, "tools/list", "dlp_hidden", why);
    tools.erase(*it);
  }
}

std::expected<std::shared_ptr<const dlp::RuleSet>, std::string> loadDlpRules(
    const config::Config& config) {
  std::vector<fs::path> paths(config.dlp.rules.begin(), config.dlp.rules.end());
  if (paths.empty()) {
    return std::unexpected(config.source +
                           ": dlp: no rule packs found; install them, list files under "
                           "dlp.rules, or set dlp.enabled: false");
  }
  dlp::LoadOptions options;
  options.cache_dir = hyperscanCache(config.cache_dir);
  auto rules = dlp::RuleSet::load(paths, options);
  if (!rules) return std::unexpected("DLP rules: " + rules.error().message);
  return *rules;
}

std::expected<RulesAndPolicies, std::string> loadRulesAndPolicies(const config::Config& config) {
  RulesAndPolicies out;
  if (config.dlp.enabled) {
    auto loaded = loadDlpRules(config);
    if (!loaded) return std::unexpected(loaded.error());
    out.rules = std::move(*loaded);
  }
  auto policies = PolicyTable::build(config, out.rules);
  if (!policies) return std::unexpected(policies.error());
  out.policies = std::move(*policies);
  return out;
}

std::expected<std::shared_ptr<const FilterChain>, std::string> buildFilterChain(
    const config::Config& config) {
  auto chain = std::make_shared<FilterChain>();
  auto loaded = loadRulesAndPolicies(config);
  if (!loaded) return std::unexpected(loaded.error());
  auto [rules, policies] = std::move(*loaded);
  if (rules) {
    log::info("DLP rules loaded", {{"rules", rules->size()},
                                   {"paths", config.dlp.rules},
                                   {"from_cache", rules->fromCache()}});
  } else {
    log::warn("DLP is disabled by the config: messages pass unscanned",
              {{"config", config.source}});
  }
  std::shared_ptr<PinStore> pins;
  if (config.pins.enabled) {
    auto opened = PinStore::open(config.state_dir);
    if (!opened) {
      return std::unexpected("tool pinning: " + opened.error() +
                             " (set state_dir, or pins: {enabled: false})");
    }
    pins = std::move(*opened);
  }
  // Policy first: a denied tool's call is refused before anything scans it,
  // and a hidden tool's description is not scanned either.
  if (pins || !policies->empty()) {
    chain->add(
        std::make_shared<const PolicyFilter>(policies, std::move(pins), config.pins.on_change));
  }
  if (rules) chain->add(std::make_shared<const DlpFilter>(rules, policies));
  return chain;
}

}  // namespace mcpgate::gateway
