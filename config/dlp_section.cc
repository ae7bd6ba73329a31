#include "config/dlp_section.h"

#include <map>
#include <optional>
#include <string_view>
#include <system_error>

#include "config/units.h"
#include "config/yaml_support.h"
#include "dlp/rule.h"
#include "dlp/rule_paths.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using detail::lineOf;

constexpr std::string_view kActions = "one of log, warn, redact, block";

class DlpLoader {
 public:
  DlpLoader(const std::string& file, const fs::path& dir) : file_(file), dir_(dir) {}

  [[nodiscard]] std::expected<void, Error> load(const YAML::Node& key, const YAML::Node& value,
                                                DlpConfig& dlp) const {
    if (value.IsNull()) return {};  // `dlp:` alone: all defaults
    if (!value.IsMap()) return fail(lineOf(key), "dlp must be a map");
    auto items = entries(value, "in dlp");
    if (!items) return std::unexpected(items.error());
    for (const auto& [name, name_node, item] : *items) {
      const int line = item.IsNull() ? lineOf(name_node) : lineOf(item);
      std::expected<void, Error> done;
      if (name == "enabled") {
        done = loadEnabled(item, line, dlp);
      } else if (name == "rules") {
        done = loadRules(item, line, dlp);
      } else if (name == "default_action") {
        done = loadDirectionActions(item, line, "dlp.default_action", dlp.request_action,
                                    dlp.response_action);
      } else if (name == "unscanned_action") {
        done = loadDirectionActions(item, line, "dlp.unscanned_action", dlp.unscanned_request,
                                    dlp.unscanned_response);
      } else if (name == "max_decoded_bytes" || name == "max_decoded_bytes_per_message") {
        done = loadSize(item, line, "dlp." + name,
                        name == "max_decoded_bytes" ? dlp.max_decoded_bytes
                                                    : dlp.max_decoded_bytes_per_message);
      } else {
        done = fail(
            lineOf(name_node),
            detail::unknownKeyMessage(name, "in dlp",
                                      {"enabled", "rules", "default_action", "unscanned_action",
                                       "max_decoded_bytes", "max_decoded_bytes_per_message"}));
      }
      if (!done) return done;
    }
    return {};
  }

 private:
  struct Item {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };

  [[nodiscard]] std::unexpected<Error> fail(int line, std::string_view message) const {
    return std::unexpected(Error{file_ + ":" + std::to_string(line) + ": " + std::string(message)});
  }

  // A map's pairs in file order; a duplicated key is an error, as everywhere in the file.
  [[nodiscard]] std::expected<std::vector<Item>, Error> entries(const YAML::Node& map,
                                                                std::string_view where) const {
    std::vector<Item> out;
    std::map<std::string, int, std::less<>> first_line;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) {
        return fail(lineOf(it->first), "keys " + std::string(where) + " must be strings");
      }
      const auto [seen, inserted] = first_line.emplace(it->first.Scalar(), lineOf(it->first));
      if (!inserted) {
        return fail(lineOf(it->first), "duplicate key '" + it->first.Scalar() + "' " +
                                           std::string(where) + " (first on line " +
                                           std::to_string(seen->second) + ")");
      }
      out.push_back({it->first.Scalar(), it->first, it->second});
    }
    return out;
  }

  [[nodiscard]] std::expected<void, Error> loadEnabled(const YAML::Node& value, int line,
                                                       DlpConfig& dlp) const {
    if (!value.IsScalar() || (value.Scalar() != "true" && value.Scalar() != "false")) {
      return fail(line, "dlp.enabled must be true or false");
    }
    dlp.enabled = value.Scalar() == "true";
    return {};
  }

  // Checked here, not only when the rules load, so `config check` catches a
  // wrong path with the line that names it.
  [[nodiscard]] std::expected<void, Error> loadRules(const YAML::Node& value, int line,
                                                     DlpConfig& dlp) const {
    constexpr std::string_view kKind = "a list of rule files or directories";
    if (!value.IsSequence()) return fail(line, "dlp.rules must be " + std::string(kKind));
    if (value.size() == 0) {
      // Probably meant "no DLP": make the author say so.
      return fail(line,
                  "dlp.rules is empty: remove it for the shipped rule packs, or set "
                  "dlp.enabled: false to turn DLP off");
    }
    for (const YAML::Node& node : value) {
      const int at = lineOf(node);
      if (!node.IsScalar() || node.Scalar().empty() ||
          node.Scalar().find('\0') != std::string::npos) {
        return fail(at, "dlp.rules entries must be file or directory paths");
      }
      const fs::path written(node.Scalar());
      const fs::path resolved =
          (written.is_absolute() ? written : dir_ / written).lexically_normal();
      std::error_code ec;
      if (!fs::exists(resolved, ec)) {
        return fail(at, "dlp.rules entry '" + node.Scalar() + "' does not exist (" +
                            resolved.string() + ")");
      }
      dlp.rules.push_back(resolved.string());
    }
    return {};
  }

  // A {request: ACTION, response: ACTION} map (either key may be left out).
  [[nodiscard]] std::expected<void, Error> loadDirectionActions(
      const YAML::Node& value, int line, const std::string& where,
      std::optional<dlp::Action>& request, std::optional<dlp::Action>& response) const {
    if (!value.IsMap()) {
      return fail(line, where + " must be a map such as {request: block, response: redact}");
    }
    auto items = entries(value, "in " + where);
    if (!items) return std::unexpected(items.error());
    for (const auto& [name, name_node, item] : *items) {
      const int at = item.IsNull() ? lineOf(name_node) : lineOf(item);
      if (name != "request" && name != "response") {
        return fail(lineOf(name_node),
                    detail::unknownKeyMessage(name, "in " + where, {"request", "response"}));
      }
      const std::string path = where + "." + name;
      if (!item.IsScalar()) return fail(at, path + " must be " + std::string(kActions));
      auto action = dlp::parseAction(item.Scalar());
      if (!action) {
        return fail(at, path + " '" + item.Scalar() + "' must be " + std::string(kActions));
      }
      (name == "request" ? request : response) = *action;
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadSize(const YAML::Node& value, int line,
                                                    const std::string& where,
                                                    std::uint64_t& out) const {
    if (!value.IsScalar()) return fail(line, where + " must be a size such as 4MiB");
    auto size = parseSize(value.Scalar());
    if (!size) return fail(line, where + " '" + value.Scalar() + "' " + size.error());
    if (*size == 0) return fail(line, where + " must be more than 0");
    out = *size;
    return {};
  }

  const std::string& file_;
  const fs::path& dir_;
};

}  // namespace

std::expected<void, Error> loadDlpSection(const YAML::Node& key, const YAML::Node& value,
                                          const std::string& file, const fs::path& dir,
                                          DlpConfig& dlp) {
  return DlpLoader(file, dir).load(key, value, dlp);
}

void finishDlpSection(DlpConfig& dlp) {
  if (!dlp.rules.empty()) return;
  for (const fs::path& path : dlp::defaultRulePaths()) dlp.rules.push_back(path.string());
}

void emitDlpSection(YAML::Emitter& out, const DlpConfig& dlp) {
  out << YAML::BeginMap;
  out << YAML::Key << "enabled" << YAML::Value << dlp.enabled;
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const std::string& path : dlp.rules) out << path;
  out << YAML::EndSeq;
  if (dlp.request_action || dlp.response_action) {
    out << YAML::Key << "default_action" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (dlp.request_action) {
      out << YAML::Key << "request" << YAML::Value
          << std::string(dlp::toString(*dlp.request_action));
    }
    if (dlp.response_action) {
      out << YAML::Key << "response" << YAML::Value
          << std::string(dlp::toString(*dlp.response_action));
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "unscanned_action" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "request" << YAML::Value
      << std::string(dlp::toString(dlp.unscanned_request.value_or(dlp::Action::kBlock)));
  out << YAML::Key << "response" << YAML::Value
      << std::string(dlp::toString(dlp.unscanned_response.value_or(dlp::Action::kBlock)));
  out << YAML::EndMap;
  out << YAML::Key << "max_decoded_bytes" << YAML::Value << dlp.max_decoded_bytes;
  out << YAML::Key << "max_decoded_bytes_per_message" << YAML::Value
      << dlp.max_decoded_bytes_per_message;
  out << YAML::EndMap;
}

}  // namespace mcpgate::config
