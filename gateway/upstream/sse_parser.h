#pragma once

// The Server-Sent Events a remote MCP server answers with, parsed as they
// arrive. Pure: no I/O, so it is tested and fuzzed on its own.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mcpgate::gateway {

// Server-Sent Events, fed in pieces; each complete event's data is one message.
class SseParser {
 public:
  explicit SseParser(std::size_t max_event_bytes) : max_(max_event_bytes) {}

  // False when an event grows past the limit.
  template <class Deliver>
  bool feed(std::string_view chunk, Deliver&& deliver) {
    for (char c : chunk) {
      if (c != '\n') {
        if (line_.size() > max_) return false;
        line_ += c;
        continue;
      }
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      if (line_.empty()) {
        if (has_data_) {
          if (!data_.empty() && data_.back() == '\n') data_.pop_back();
          // Priming events (an id and empty data) carry no message.
          if (data_.find_first_not_of(" \t\r\n") != std::string::npos) deliver(std::move(data_));
          data_.clear();
          has_data_ = false;
        }
        continue;
      }
      if (line_.starts_with("data:")) {
        std::string_view value = std::string_view(line_).substr(5);
        if (value.starts_with(' ')) value.remove_prefix(1);
        data_.append(value);
        data_ += '\n';
        has_data_ = true;
        if (data_.size() > max_) return false;
      }
      // The event id and reconnection time a stream may be resumed with
      // (2025-11-25 Streamable HTTP, resumability: a priming event carries
      // them before the server closes a POST's stream). An id holding NUL or
      // CR is ignored, as the SSE standard says for NUL: it becomes a header.
      if (line_.starts_with("id:")) {
        std::string_view value = std::string_view(line_).substr(3);
        if (value.starts_with(' ')) value.remove_prefix(1);
        if (value.find_first_of(std::string_view("\0\r", 2)) == std::string_view::npos) {
          last_id_.assign(value);
        }
      } else if (line_.starts_with("retry:")) {
        std::string_view value = std::string_view(line_).substr(6);
        if (value.starts_with(' ')) value.remove_prefix(1);
        if (!value.empty() && value.size() <= 9 &&
            value.find_first_not_of("0123456789") == std::string_view::npos) {
          retry_ms_ = std::stoul(std::string(value));
        }
      }
      // event: and comments mean nothing to the gateway.
      line_.clear();
    }
    return true;
  }

  // The last event id the stream named ("" when none), and its last retry:
  // in milliseconds (nullopt when none).
  [[nodiscard]] const std::string& lastEventId() const { return last_id_; }
  [[nodiscard]] std::optional<std::size_t> retryMs() const { return retry_ms_; }

 private:
  std::size_t max_;
  std::string line_;
  std::string data_;
  bool has_data_ = false;
  std::string last_id_;
  std::optional<std::size_t> retry_ms_;
};

}  // namespace mcpgate::gateway
