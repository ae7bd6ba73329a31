#pragma once

// Helpers every section loader of the config file shares (config/ only).

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.h"

namespace mcpgate::config::detail {

// 1-based line of a node, 0 when yaml-cpp has none.
[[nodiscard]] int lineOf(const YAML::Node& node);

[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b);

// "unknown key 'K' WHERE" with " (did you mean 'X'?)" when one known key is close.
[[nodiscard]] std::string unknownKeyMessage(std::string_view key, std::string_view where,
                                            std::initializer_list<std::string_view> known);

// One key: value pair of a map, with the key's position kept for messages.
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;

  // An empty value's mark is that of the next token, often on a later line;
  // the key's line is where the reader looks.
  [[nodiscard]] int line() const { return value.IsNull() ? lineOf(key_node) : lineOf(value); }
};

// The file being read, and the value readers every section uses. Errors are
// "FILE:LINE: message".
class Reader {
 public:
  Reader(std::string file, std::filesystem::path dir)
      : file_(std::move(file)), dir_(std::move(dir)) {}

  [[nodiscard]] Error error(int line, std::string_view message) const;
  [[nodiscard]] std::unexpected<Error> fail(int line, std::string_view message) const;

  // The pairs of a map in file order. yaml-cpp keeps both pairs of a duplicated
  // key; a second value silently winning would hide a mistake, so it is an error.
  [[nodiscard]] std::expected<std::vector<Entry>, Error> entries(const YAML::Node& map,
                                                                 std::string_view where) const;

  [[nodiscard]] std::unexpected<Error> unknownKey(
      const Entry& e, std::string_view where, std::initializer_list<std::string_view> known) const;

  // A scalar value as written ("3" stays "3"). NUL bytes (from a "\0" escape)
  // are refused: exec and getenv would silently cut the string there.
  [[nodiscard]] std::expected<std::string, Error> scalar(const YAML::Node& node, int line,
                                                         const std::string& path,
                                                         std::string_view kind) const;
  [[nodiscard]] std::expected<std::string, Error> scalar(const Entry& e, const std::string& path,
                                                         std::string_view kind) const;

  // A file path relative to the config file's directory, which must be a
  // readable regular file now, so a typo shows at load rather than at first
  // use. Returns the absolute path.
  [[nodiscard]] std::expected<std::string, Error> readableFile(const Entry& e,
                                                               const std::string& path) const;

  // A decimal integer in [min, max]; `range` says so in the error.
  [[nodiscard]] std::expected<std::uint64_t, Error> integerInRange(const Entry& e,
                                                                   const std::string& path,
                                                                   std::uint64_t min,
                                                                   std::uint64_t max,
                                                                   const std::string& range) const;

  // A map of environment variables (a server's `env`, a sandbox's `env`),
  // with ${VAR} references expanded.
  [[nodiscard]] std::expected<void, Error> loadEnv(
      const Entry& e, const std::string& path,
      std::vector<std::pair<std::string, std::string>>& env) const;

 protected:
  std::string file_;
  std::filesystem::path dir_;  // absolute directory of the config file
};

// Values often carry tokens, and this text ends up in terminals and logs.
void emitEnv(YAML::Emitter& out, const std::vector<std::pair<std::string, std::string>>& env);

}  // namespace mcpgate::config::detail
