#include "sandbox/stderr_lines.h"

#include <algorithm>
#include <utility>

namespace mcpgate::sandbox {

StderrLines::StderrLines(StderrLimits limits)
    : limits_(limits), tokens_(static_cast<double>(limits.burst)) {}

void StderrLines::complete(std::vector<std::string>& out, Clock::time_point now) {
  if (!started_) {
    started_ = true;
    last_refill_ = now;
  }
  std::chrono::duration<double> elapsed = now - last_refill_;
  tokens_ = std::min(static_cast<double>(limits_.burst),
                     tokens_ + elapsed.count() * limits_.lines_per_second);
  last_refill_ = now;
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    if (truncated_) partial_ += "…[truncated]";
    out.push_back(std::move(partial_));
  } else {
    if (dropped_++ == 0) first_drop_ = now;
  }
  partial_.clear();
  truncated_ = false;
}

std::vector<std::string> StderrLines::feed(std::string_view bytes, Clock::time_point now) {
  std::vector<std::string> out;
  while (!bytes.empty()) {
    auto nl = bytes.find('\n');
    std::string_view piece = bytes.substr(0, nl);
    // Keep at most max_line_bytes of a line; the rest is only counted as cut.
    std::size_t room = limits_.max_line_bytes - std::min(limits_.max_line_bytes, partial_.size());
    partial_.append(piece.substr(0, room));
    if (piece.size() > room) truncated_ = true;
    if (nl == std::string_view::npos) break;
    complete(out, now);
    bytes.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string> StderrLines::finish(Clock::time_point now) {
  std::vector<std::string> out;
  if (!partial_.empty() || truncated_) complete(out, now);
  return out;
}

std::uint64_t StderrLines::takeDropped() { return std::exchange(dropped_, 0); }

std::optional<StderrLines::Clock::time_point> StderrLines::droppedDue() const {
  if (dropped_ == 0) return std::nullopt;
  return first_drop_ + std::chrono::seconds(1);
}

std::uint64_t StderrLines::takeDroppedIfDue(Clock::time_point now) {
  auto due = droppedDue();
  if (!due || now < *due) return 0;
  return takeDropped();
}

}  // namespace mcpgate::sandbox
