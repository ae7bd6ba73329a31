#pragma once

// A server's stderr goes to the gateway log line by line. A server that
// floods stderr must not flood the log: lines are capped in length and in
// rate (a token bucket), and what was dropped is counted so the log says so.

#include <chrono>
#include <cstddef>
#include <cstdint>
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

 private:
  void complete(std::vector<std::string>& out, Clock::time_point now);

  StderrLimits limits_;
  std::string partial_;
  bool truncated_ = false;
  double tokens_;
  Clock::time_point last_refill_{};
  bool started_ = false;
  std::uint64_t dropped_ = 0;
};

}  // namespace mcpgate::sandbox
