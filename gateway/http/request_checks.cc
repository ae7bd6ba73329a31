#include "gateway/http/request_checks.h"

namespace mcpgate::gateway {

std::size_t headerSectionEnd(std::string_view data) {
  std::size_t start = 0;
  while (data.substr(start).starts_with("\r\n")) start += 2;
  // CRLF CRLF ends it; a bare LF LF too (the parser then refuses the request).
  for (std::size_t at = data.find('\n', start); at != std::string_view::npos;
       at = data.find('\n', at + 1)) {
    const std::string_view rest = data.substr(at + 1);
    if (rest.starts_with("\n")) return at + 2;
    if (rest.starts_with("\r\n")) return at + 3;
  }
  return std::string_view::npos;
}

std::optional<std::string> foldedHeaderProblem(std::string_view head) {
  // A line that starts with a space or tab continues the one before it
  // (RFC 9112 5.2: a server must refuse it or replace it; the gateway refuses).
  for (std::size_t at = head.find('\n'); at != std::string_view::npos && at + 1 < head.size();
       at = head.find('\n', at + 1)) {
    const char next = head[at + 1];
    if (next == ' ' || next == '\t') {
      return "folded header lines (obs-fold) are not accepted; send each header on one line";
    }
  }
  return std::nullopt;
}

std::optional<std::string> framingProblem(std::size_t transfer_encodings,
                                          std::string_view transfer_encoding, std::size_t hosts,
                                          unsigned version) {
  if (transfer_encodings > 1) return "more than one Transfer-Encoding header";
  if (transfer_encodings == 1) {
    while (!transfer_encoding.empty() &&
           (transfer_encoding.front() == ' ' || transfer_encoding.front() == '\t')) {
      transfer_encoding.remove_prefix(1);
    }
    while (!transfer_encoding.empty() &&
           (transfer_encoding.back() == ' ' || transfer_encoding.back() == '\t')) {
      transfer_encoding.remove_suffix(1);
    }
    bool chunked = transfer_encoding.size() == 7;
    for (std::size_t i = 0; chunked && i < 7; ++i) {
      chunked = (transfer_encoding[i] | 0x20) == "chunked"[i];
    }
    if (!chunked) {
      return "Transfer-Encoding '" + std::string(transfer_encoding.substr(0, 64)) +
             "' is not accepted; only chunked is";
    }
  }
  if (hosts > 1) return "more than one Host header";
  if (hosts == 0 && version >= 11) return "HTTP/1.1 needs a Host header";
  return std::nullopt;
}

}  // namespace mcpgate::gateway
