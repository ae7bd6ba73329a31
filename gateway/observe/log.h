#pragma once

// Structured logs: one JSON object per line on stderr (stdout may be the MCP
// channel in stdio mode). Thread-safe; a line is written with one write().

#include <chrono>
#include <cstdint>
#include <mutex>
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

// One log line a peer can make the gateway write at will (a refused request,
// a dropped message): at most `lines` per window, the rest counted and said
// in the next line written as "suppressed" (how many events it did not log).
// Shared by every caller of one line, across threads.
class Limiter {
 public:
  explicit Limiter(int lines = 5, std::chrono::milliseconds window = std::chrono::seconds(1))
      : lines_(lines), window_(window) {}
  // `events`: how many events this line stands for (dropped messages, ...).
  void write(Level level, std::string_view msg, nlohmann::json fields = nullptr,
             std::uint64_t events = 1);
  void warn(std::string_view msg, nlohmann::json fields = nullptr, std::uint64_t events = 1) {
    write(Level::kWarn, msg, std::move(fields), events);
  }

 private:
  const int lines_;
  const std::chrono::milliseconds window_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point window_start_{};
  int written_ = 0;
  std::uint64_t suppressed_ = 0;
};

}  // namespace mcpgate::gateway::log
