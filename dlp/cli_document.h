#pragma once

// What the CLI commands (cli_scan.cc, cli_rules.cc) share: reading a file the way `mcpgate scan`
// reads it (JSON, JSON Lines, binary or text) and loading rules through the database cache.

#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlp/rule_set.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {

inline constexpr int kExitClean = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

// Bytes of text files only: a NUL in the first 8 KiB means binary, as git decides it.
[[nodiscard]] bool looksBinary(std::string_view data);
// 1-based line and byte column of `offset` in `text`.
[[nodiscard]] std::pair<std::size_t, std::size_t> lineColumn(std::string_view text,
                                                             std::size_t offset);

// One finding placed in the scanned file.
struct Placed {
  const Finding* finding;
  std::size_t offset;       // byte offset in the file of the finding's first byte; npos: unknown
  std::string_view secret;  // the decoded secret, for the masked preview
};

// Scans one file's bytes the way `mcpgate scan` does: JSON (an object or array) as JSON, JSON
// Lines line by line as JSON, binary through its printable runs, the rest as text. With
// `text_too`, JSON is also scanned as plain text (rules lint: a benign file must be clean both
// ways). `sink` gets every finding with its place in the file. False when part of it could not be
// scanned (the engine failed: no scratch for the databases, a text over 4 GiB).
[[nodiscard]] bool scanDocument(const Scanner& scanner, const Policy& policy, Direction dir,
                  std::string_view name, std::string_view data, bool text_too,
                  const std::function<void(const Placed&)>& sink);

// Compiled databases are cached so that running `mcpgate scan` again does not recompile the
// packs: $MCPGATE_CACHE_DIR (empty disables), else $XDG_CACHE_HOME/mcpgate, else ~/.cache/mcpgate.
[[nodiscard]] std::filesystem::path cacheDir();
[[nodiscard]] std::expected<std::shared_ptr<const RuleSet>, Error> loadRules(
    const std::vector<std::filesystem::path>& paths);

}  // namespace mcpgate::dlp
