#include "config/yaml_support.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <system_error>

#include "common/errno_text.h"
#include "config/expand.h"
#include "config/secret_refs.h"

namespace mcpgate::config::detail {

int lineOf(const YAML::Node& node) { return node.Mark().is_null() ? 0 : node.Mark().line + 1; }

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string unknownKeyMessage(std::string_view key, std::string_view where,
                              std::initializer_list<std::string_view> known) {
  std::string message = "unknown key '" + std::string(key) + "' " + std::string(where);
  std::string_view best;
  std::size_t best_distance = 3;  // more than two edits apart is a different word
  for (std::string_view candidate : known) {
    const std::size_t distance = editDistance(key, candidate);
    if (distance < best_distance && distance < key.size()) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (!best.empty()) message += " (did you mean '" + std::string(best) + "'?)";
  return message;
}

namespace {

bool isEnvironmentName(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

Error Reader::error(int line, std::string_view message) const {
  return Error{file_ + ":" + std::to_string(line) + ": " + std::string(message)};
}

std::unexpected<Error> Reader::fail(int line, std::string_view message) const {
  return std::unexpected(error(line, message));
}

std::expected<std::vector<Entry>, Error> Reader::entries(const YAML::Node& map,
                                                         std::string_view where) const {
  std::vector<Entry> out;
  if (map.IsNull()) return out;
  std::map<std::string, int, std::less<>> first_line;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) {
      return fail(lineOf(it->first), "keys " + std::string(where) + " must be strings");
    }
    Entry e{it->first.Scalar(), it->first, it->second};
    const auto [seen, inserted] = first_line.emplace(e.key, lineOf(e.key_node));
    if (!inserted) {
      return fail(lineOf(e.key_node), "duplicate key '" + e.key + "' " + std::string(where) +
                                          " (first on line " + std::to_string(seen->second) + ")");
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::unexpected<Error> Reader::unknownKey(const Entry& e, std::string_view where,
                                          std::initializer_list<std::string_view> known) const {
  return fail(lineOf(e.key_node), unknownKeyMessage(e.key, where, known));
}

std::expected<std::string, Error> Reader::scalar(const YAML::Node& node, int line,
                                                 const std::string& path,
                                                 std::string_view kind) const {
  if (!node.IsScalar()) return fail(line, path + " must be " + std::string(kind));
  if (node.Scalar().find('\0') != std::string::npos) {
    return fail(line, path + " must not contain a NUL byte");
  }
  return node.Scalar();
}

std::expected<std::string, Error> Reader::scalar(const Entry& e, const std::string& path,
                                                 std::string_view kind) const {
  return scalar(e.value, e.line(), path, kind);
}

std::expected<std::string, Error> Reader::readableFile(const Entry& e,
                                                       const std::string& path) const {
  namespace fs = std::filesystem;
  auto text = scalar(e, path, "a file path");
  if (!text) return std::unexpected(text.error());
  if (text->empty()) return fail(e.line(), path + " must not be empty");
  const fs::path written(*text);
  const std::string resolved =
      (written.is_absolute() ? written : dir_ / written).lexically_normal();
  std::string shown = "'" + *text + "'";
  if (resolved != *text) shown += " (" + resolved + ")";
  std::error_code ec;
  if (!fs::is_regular_file(resolved, ec)) {
    return fail(e.line(), path + " " + shown +
                              (fs::exists(resolved, ec) ? " is not a file" : " does not exist"));
  }
  if (::access(resolved.c_str(), R_OK) != 0) {
    return fail(e.line(),
                path + " " + shown + " cannot be read: " + common::errnoText(errno));
  }
  return resolved;
}

std::expected<std::uint64_t, Error> Reader::integerInRange(const Entry& e, const std::string& path,
                                                           std::uint64_t min, std::uint64_t max,
                                                           const std::string& range) const {
  auto text = scalar(e, path, range);
  if (!text) return std::unexpected(text.error());
  std::uint64_t value = 0;
  bool valid = !text->empty() && text->size() <= 10;
  for (char c : *text) {
    valid = valid && c >= '0' && c <= '9';
    if (valid) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!valid || value < min || value > max) {
    return fail(e.line(), path + " '" + *text + "' must be " + range);
  }
  return value;
}

std::expected<void, Error> Reader::loadEnv(
    const Entry& e, const std::string& path,
    std::vector<std::pair<std::string, std::string>>& env) const {
  if (!e.value.IsMap() && !e.value.IsNull()) {
    return fail(e.line(), path + " must be a map of strings");
  }
  auto items = entries(e.value, "in " + path);
  if (!items) return std::unexpected(items.error());
  for (const Entry& item : *items) {
    if (!isEnvironmentName(item.key)) {
      return fail(lineOf(item.key_node),
                  path + " key '" + item.key +
                      "' is not a valid environment variable name (use [A-Za-z_][A-Za-z0-9_]*)");
    }
    auto raw = scalar(item, path, "a map of strings");
    if (!raw) return std::unexpected(raw.error());
    // ${secret:NAME} stays a placeholder until the store is opened, once the
    // whole file (state_dir included) has been read: see config/secret_refs.h.
    const VariableLookup secrets = [](const std::string& name) -> std::optional<std::string> {
      return secretPlaceholder(name);
    };
    auto value = expandVariables(*raw, lookupEnvironment, &secrets);
    if (!value) return fail(item.line(), path + "." + item.key + ": " + value.error());
    env.emplace_back(item.key, std::move(*value));
  }
  return {};
}

void emitEnv(YAML::Emitter& out, const std::vector<std::pair<std::string, std::string>>& env) {
  if (env.empty()) out << YAML::Flow;
  out << YAML::BeginMap;
  for (const auto& [key, value] : env) out << YAML::Key << key << YAML::Value << "<set>";
  out << YAML::EndMap;
}

}  // namespace mcpgate::config::detail
