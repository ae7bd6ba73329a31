#pragma once

// Where a request's SSE stream may be resumed when a legacy (2025-11-25)
// remote closes it before the answer, after a priming event that named an
// event id and a retry: delay (Streamable HTTP resumability, SEP-1699): a GET
// with Last-Event-ID picks it up again. Pure bookkeeping; the remote upstream
// does the I/O.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "gateway/upstream/sse_parser.h"

namespace mcpgate::gateway {

class StreamResume {
 public:
  // Resumptions of one request, and the longest retry: delay honoured.
  static constexpr int kMaxResumes = 16;
  static constexpr std::size_t kMaxRetryMs = 10'000;
  static constexpr std::size_t kDefaultRetryMs = 1'000;

  // After each stream of the request ends: what it said last.
  void noteStream(const SseParser& sse) {
    if (sse.lastEventId().empty()) return;
    last_event_id_ = sse.lastEventId();
    retry_ms_ = sse.retryMs();
  }
  // Whether the stream can be resumed (again).
  [[nodiscard]] bool pending() const { return !last_event_id_.empty() && resumes_ < kMaxResumes; }
  [[nodiscard]] std::chrono::milliseconds delay() const {
    return std::chrono::milliseconds(std::min(retry_ms_.value_or(kDefaultRetryMs), kMaxRetryMs));
  }
  // The Last-Event-ID of the next GET; the stream it opens must name a new one.
  [[nodiscard]] std::string take() {
    ++resumes_;
    return std::exchange(last_event_id_, {});
  }

 private:
  std::string last_event_id_;
  std::optional<std::size_t> retry_ms_;
  int resumes_ = 0;
};

}  // namespace mcpgate::gateway
