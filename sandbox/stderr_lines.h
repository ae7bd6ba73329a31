#pragma once

// A server's stderr goes to the gateway log line by line. A server that
// floods stderr must not flood the log: lines are capped in length and in
// rate (a token bucket), and what was dropped is counted so the log says so,
// one second after the first dropped line (when the flood's window closes),
// whether or not another line arrives after it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::sandbox {

struct StderrLimits {
  double lines_per_second = 20;  // sustained rate
  std::size_t burst = 20;        // lines allowed at once after a quiet period
  std::size_t max_line_bytes = 1024;
};

class StderrLines {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StderrLines(StderrLimits limits = {});

  // Feeds bytes as read from the pipe; returns the complete lines to log now
  // (without the newline, truncated lines end with "…[truncated]").
  [[nodiscard]] std::vector<std::string> feed(std::string_view bytes,
                                              Clock::time_point now = Clock::now());

  // The unterminated rest, when the pipe closes.
  [[nodiscard]] std::vector<std::string> finish(Clock::time_point now = Clock::now());

  // Lines dropped by the rate limit since the last call; resets the count.
  [[nodiscard]] std::uint64_t takeDropped();

  // When the dropped count is due to be logged: one second after the first
  // line dropped since the last report; nullopt while nothing was dropped.
  // The caller arms a timer for it, so a flood that stops is still reported.
  [[nodiscard]] std::optional<Clock::time_point> droppedDue() const;

  // The dropped count if it is due at `now` (and resets it), else 0.
  [[nodiscard]] std::uint64_t takeDroppedIfDue(Clock::time_point now);

 private:
  void complete(std::vector<std::string>& out, Clock::time_point now);

  StderrLimits limits_;
  std::string partial_;
  bool truncated_ = false;
  double tokens_;
  Clock::time_point last_refill_{};
  bool started_ = false;
  std::uint64_t dropped_ = 0;
  Clock::time_point first_drop_{};
};

}  // namespace mcpgate::sandbox
