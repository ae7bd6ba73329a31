#include "config/audit_section.h"

#include <string_view>

#include "config/yaml_support.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using detail::Entry;

class AuditLoader : private detail::Reader {
 public:
  using Reader::Reader;

  [[nodiscard]] std::expected<void, Error> load(const YAML::Node& key, const YAML::Node& value,
                                                AuditConfig& audit) const {
    audit.enabled = true;
    if (value.IsNull()) return {};  // `audit:` alone: on, with the defaults
    if (!value.IsMap()) {
      return fail(detail::lineOf(key),
                  "audit must be a map such as {path: /var/log/mcpgate/audit.jsonl}");
    }
    auto items = entries(value, "in audit");
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      std::expected<void, Error> done;
      if (item.key == "path") {
        done = loadPath(item, /*stdout_allowed=*/true, audit.path);
      } else if (item.key == "key_file") {
        done = loadPath(item, /*stdout_allowed=*/false, audit.key_file);
      } else {
        done = unknownKey(item, "in audit", {"path", "key_file"});
      }
      if (!done) return done;
    }
    return {};
  }

 private:
  [[nodiscard]] std::expected<void, Error> loadPath(const Entry& e, bool stdout_allowed,
                                                    std::string& out) const {
    const std::string path = "audit." + e.key;
    const std::string kind =
        stdout_allowed ? "a file path, or \"-\" for stdout" : std::string("a file path");
    auto text = scalar(e, path, kind);
    if (!text) return std::unexpected(text.error());
    if (text->empty()) return fail(e.line(), path + " must be " + kind);
    if (*text == "-") {
      if (stdout_allowed) {
        out = "-";
        return {};
      }
      return fail(e.line(), path + " must be " + kind);
    }
    const fs::path written(*text);
    fs::path resolved = (written.is_absolute() ? written : dir_ / written).lexically_normal();
    if (!resolved.has_filename()) {
      return fail(e.line(), path + " '" + *text + "' names a directory, not a file");
    }
    out = resolved.string();
    return {};
  }
};

}  // namespace

std::expected<void, Error> loadAuditSection(const YAML::Node& key, const YAML::Node& value,
                                            const std::string& file, const fs::path& dir,
                                            AuditConfig& audit) {
  return AuditLoader(file, dir).load(key, value, audit);
}

void finishAuditSection(const std::string& state_dir, AuditConfig& audit) {
  if (!audit.enabled) return;
  if (audit.path.empty()) audit.path = state_dir + "/audit.jsonl";
  if (audit.key_file.empty()) audit.key_file = state_dir + "/audit.key";
}

void emitAuditSection(YAML::Emitter& out, const AuditConfig& audit) {
  out << YAML::BeginMap;
  out << YAML::Key << "path" << YAML::Value << audit.path;
  out << YAML::Key << "key_file" << YAML::Value << audit.key_file;
  out << YAML::EndMap;
}

}  // namespace mcpgate::config
