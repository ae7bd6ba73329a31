#pragma once

// The audit trail: one record per DLP finding and per policy decision, never
// holding the matched text itself. Every finding and decision the gateway
// makes goes through finding() and decision() and nowhere else: each is a
// line in the gateway log, a count in /metrics and, when the config has an
// `audit:` section, a JSON line in the audit log with a keyed hash of the
// matched value (the same secret gives the same hash, so events correlate
// without the secret being stored).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/config.h"
#include "gateway/mcp/message_context.h"

namespace mcpgate::dlp {
struct Finding;
}

namespace mcpgate::gateway::audit {

// A DLP finding in a message. `preview` is the masked preview; `matched` is
// the matched text, used only for its keyed hash and never written.
void finding(const MessageContext& context, std::string_view method, const dlp::Finding& finding,
             std::string_view preview, std::string_view matched);

// Past the per-message cap on finding lines (kFindingLinesPerMessage): a finding
// only counted in /metrics, and then one summary line (and audit record) per
// message with how many were not written one by one. A message of repeated
// e-mail addresses must not turn into a log line per address.
inline constexpr std::size_t kFindingLinesPerMessage = 20;
void findingCounted(const dlp::Finding& finding);
void findingsOverCap(const MessageContext& context, std::string_view method, std::size_t not_logged,
                     std::size_t total);

// A policy decision about a message: `decision` is a short word ("deny",
// "pin_hidden", "too_large", ...), `reason` what the client was told.
void decision(const MessageContext& context, std::string_view method, std::string_view decision,
              std::string_view reason);

// An event about a server rather than a message: an egress decision, a
// sandbox refusal, a degraded layer, a dropped variable. A `message` line in
// the gateway log (a warning when `warn`) and, with an audit log, a record
// {time, event, client, session, server, method, tool, direction} (the last
// three null) followed by `fields`. An empty `message`: the caller logged it.
void serverEvent(std::string_view event, std::string_view message, bool warn,
                 std::string_view server, std::string_view session,
                 const nlohmann::ordered_json& fields);

// Where audit records go: a file, appended to with one write() per line so
// lines from many threads (and processes) never interleave, or stdout.
class Sink {
 public:
  // Opens `audit.path` (creating it 0600, and its directory, when missing) and
  // loads the hash key from `audit.key_file`, creating it on first start.
  // `stdout_is_mcp`: stdout carries the MCP messages (`mcpgate stdio`), so an
  // audit log there is refused. The error says what to change.
  [[nodiscard]] static std::expected<std::shared_ptr<Sink>, std::string> open(
      const config::AuditConfig& audit, bool stdout_is_mcp);

  Sink(std::string path, int fd, std::string key);
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink();

  // Appends one line (a newline is added). A write that fails (disk full) is
  // dropped and said in the gateway log, at most once every few seconds with
  // the number of lines lost: the gateway keeps serving.
  void write(std::string_view line);
  // Opens the file again by its path: after logrotate moved it away. The old
  // file stays in use when the new one cannot be opened.
  void reopen();
  // "hmac-sha256:" and the first 16 bytes of HMAC-SHA256(key, value), in hex.
  [[nodiscard]] std::string keyedHash(std::string_view value) const;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  const std::string path_;  // "-" for stdout
  const std::string key_;
  std::mutex mu_;
  int fd_;
  std::uint64_t lost_ = 0;  // lines dropped since the last error was logged
  std::chrono::steady_clock::time_point last_error_{};
};

// The process-wide sink that finding() and decision() write to; null (the
// default) writes none. A reload builds a new Sink (or keeps this one) and
// sets it; records in flight finish on the old one.
void setSink(std::shared_ptr<Sink> sink);
[[nodiscard]] std::shared_ptr<Sink> currentSink();
// At startup: opens the sink the config asks for (none without an `audit:`
// section) and makes it the process-wide one.
[[nodiscard]] std::expected<void, std::string> start(const config::AuditConfig& audit,
                                                     bool stdout_is_mcp);
// Reopens the process-wide sink's file (SIGHUP, for logrotate).
void reopen();

// The key in `path`: its bytes without trailing whitespace, at least 32. A
// missing file is created 0600 (its directory 0700) with 32 bytes from the
// CSPRNG in hex. A key file other users may read or write, or that is not
// ours, is refused: whoever holds the key can confirm a guessed secret.
[[nodiscard]] std::expected<std::string, std::string> loadOrCreateKey(const std::string& path);

}  // namespace mcpgate::gateway::audit
