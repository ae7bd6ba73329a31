#pragma once

// The `dlp:` section of the config file: which rule packs the gateway loads
// and the actions that override their defaults (config/ only).

#include <yaml-cpp/yaml.h>

#include <expected>
#include <filesystem>
#include <string>

#include "config/config.h"

namespace mcpgate::config {

// Reads the section into `dlp`. `key` is the `dlp` key node (its line is where
// an empty value is reported); `dir` is the config file's directory, against
// which relative rule paths resolve. Errors are "FILE:LINE: message".
[[nodiscard]] std::expected<void, Error> loadDlpSection(const YAML::Node& key,
                                                        const YAML::Node& value,
                                                        const std::string& file,
                                                        const std::filesystem::path& dir,
                                                        DlpConfig& dlp);

// Fills in what the file left unsaid: the shipped packs when it names no rules.
void finishDlpSection(DlpConfig& dlp);

// The effective section, for `mcpgate config check`.
void emitDlpSection(YAML::Emitter& out, const DlpConfig& dlp);

}  // namespace mcpgate::config
