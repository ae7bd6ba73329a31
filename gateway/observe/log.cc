#include "gateway/observe/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "gateway/mcp/jsonrpc.h"

namespace mcpgate::gateway::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};

constexpr std::string_view kNames[] = {"debug", "info", "warn", "error"};

}  // namespace

std::string timestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto secs = system_clock::to_time_t(now);
  auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

void setLevel(Level level) { g_level = static_cast<int>(level); }

bool setLevel(std::string_view name) {
  for (int i = 0; i < 4; ++i) {
    if (kNames[i] == name) {
      g_level = i;
      return true;
    }
  }
  return false;
}

bool enabled(Level level) { return static_cast<int>(level) >= g_level.load(); }

void write(Level level, std::string_view msg, const nlohmann::json& fields) {
  if (!enabled(level)) return;
  // The line is written out directly rather than built as a JSON object and
  // dumped: a DLP finding is a line, and copying its fields cost more than
  // writing them. Same text: time, level, msg, then the fields in order.
  // Invalid UTF-8 from a child's stderr must not make the logger throw.
  std::string text = "{\"time\":\"" + timestamp() + "\",\"level\":\"";
  text += kNames[static_cast<int>(level)];
  text += "\",\"msg\":";
  jsonrpc::appendString(msg, text);
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.get_ref<const nlohmann::json::object_t&>()) {
      // A field must not pass itself off as the line's own time, level or message.
      text += ',';
      if (key == "time" || key == "level" || key == "msg") {
        jsonrpc::appendString("field_" + key, text);
      } else {
        jsonrpc::appendString(key, text);
      }
      text += ':';
      jsonrpc::appendSerialized(value, text);
    }
  }
  text += "}\n";
  // One write() per line: lines from several threads never interleave.
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void Limiter::write(Level level, std::string_view msg, nlohmann::json fields,
                    std::uint64_t events) {
  if (!enabled(level)) return;
  std::uint64_t suppressed = 0;
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= window_) {
      window_start_ = now;
      written_ = 0;
    }
    if (written_ >= lines_) {
      suppressed_ += events;
      return;
    }
    ++written_;
    suppressed = std::exchange(suppressed_, 0);
  }
  if (suppressed > 0) {
    if (!fields.is_object()) fields = nlohmann::json::object();
    fields["suppressed"] = suppressed;
  }
  if (events > 1) {
    if (!fields.is_object()) fields = nlohmann::json::object();
    fields["events"] = events;
  }
  log::write(level, msg, fields);
}

}  // namespace mcpgate::gateway::log
