#pragma once

// The Server-Sent Events a remote MCP server answers with, parsed as they
// arrive. Pure: no I/O, so it is tested and fuzzed on its own.

#include <cstddef>
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
      // event:, id:, retry: and comments mean nothing to the gateway.
      line_.clear();
    }
    return true;
  }

 private:
  std::size_t max_;
  std::string line_;
  std::string data_;
  bool has_data_ = false;
};

}  // namespace mcpgate::gateway
