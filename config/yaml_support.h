#pragma once

// Helpers every section loader of the config file shares (config/ only).

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace mcpgate::config::detail {

// 1-based line of a node, 0 when yaml-cpp has none.
[[nodiscard]] int lineOf(const YAML::Node& node);

[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b);

// "unknown key 'K' WHERE" with " (did you mean 'X'?)" when one known key is close.
[[nodiscard]] std::string unknownKeyMessage(std::string_view key, std::string_view where,
                                            std::initializer_list<std::string_view> known);

}  // namespace mcpgate::config::detail
