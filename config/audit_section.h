#pragma once

// The `audit:` section of the config file: where the audit log goes and which
// key hashes the matched values in it (config/ only).

#include <yaml-cpp/yaml.h>

#include <expected>
#include <filesystem>
#include <string>

#include "config/config.h"

namespace mcpgate::config {

// Reads the section into `audit`. `key` is the `audit` key node; `dir` is the
// config file's directory, against which relative paths resolve. Errors are
// "FILE:LINE: message".
[[nodiscard]] std::expected<void, Error> loadAuditSection(const YAML::Node& key,
                                                          const YAML::Node& value,
                                                          const std::string& file,
                                                          const std::filesystem::path& dir,
                                                          AuditConfig& audit);

// Fills in what the file left unsaid, once state_dir is known: with an audit
// section, the log defaults to <state_dir>/audit.jsonl and the key to
// <state_dir>/audit.key.
void finishAuditSection(const std::string& state_dir, AuditConfig& audit);

// The effective section, for `mcpgate config check`.
void emitAuditSection(YAML::Emitter& out, const AuditConfig& audit);

}  // namespace mcpgate::config
