#pragma once

// Structured logs: one JSON object per line on stderr (stdout may be the MCP
// channel in stdio mode). Thread-safe; a line is written with one write().

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace mcpgate::gateway::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void setLevel(Level level);
// Accepts debug, info, warn, error; false for anything else.
bool setLevel(std::string_view name);
[[nodiscard]] bool enabled(Level level);

// Now, as every log and audit line writes it: UTC, RFC 3339 with milliseconds.
[[nodiscard]] std::string timestamp();

void write(Level level, std::string_view msg, const nlohmann::json& fields = nullptr);

inline void debug(std::string_view msg, const nlohmann::json& fields = nullptr) {
  if (enabled(Level::kDebug)) write(Level::kDebug, msg, fields);
}
inline void info(std::string_view msg, const nlohmann::json& fields = nullptr) {
  write(Level::kInfo, msg, fields);
}
inline void warn(std::string_view msg, const nlohmann::json& fields = nullptr) {
  write(Level::kWarn, msg, fields);
}
inline void error(std::string_view msg, const nlohmann::json& fields = nullptr) {
  write(Level::kError, msg, fields);
}

}  // namespace mcpgate::gateway::log
