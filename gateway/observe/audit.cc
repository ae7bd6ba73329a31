#include "gateway/observe/audit.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <system_error>

#include "common/encoding.h"
#include "common/errno_text.h"
#include "dlp/scanner.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "secrets/key_file.h"

namespace mcpgate::gateway::audit {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHashBytes = 16;
// A full disk fails every line: one error in the log per this long is enough.
constexpr auto kErrorEvery = std::chrono::seconds(10);

std::string_view directionName(Direction direction) {
  return direction == Direction::kToServer ? "request" : "response";
}

json orNull(std::string_view text) { return text.empty() ? json(nullptr) : json(text); }

// The fields every log line about a message carries.
json common(const MessageContext& context, std::string_view method) {
  json fields = {{"server", context.server},
                 {"session", context.session},
                 {"direction", directionName(context.direction)},
                 {"method", orNull(method)}};
  if (!context.client.empty()) fields["client"] = context.client;
  if (!context.tool.empty()) fields["tool"] = context.tool;
  return fields;
}

// The same for the audit log, which names every field in every line (null
// when unknown), in a fixed order, so a reader's schema never guesses.
nlohmann::ordered_json record(std::string_view event, const MessageContext& context,
                              std::string_view method) {
  nlohmann::ordered_json line;
  line["time"] = log::timestamp();
  line["event"] = event;
  line["client"] = orNull(context.client);
  line["session"] = context.session;
  line["server"] = context.server;
  line["method"] = orNull(method);
  line["tool"] = orNull(context.tool);
  line["direction"] = directionName(context.direction);
  return line;
}

std::string dump(const nlohmann::ordered_json& line) {
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

struct SinkSlot {
  std::mutex mu;
  std::shared_ptr<Sink> sink;
};

SinkSlot& slot() {
  // Never destroyed: a detached thread (mcpgate stdio's stdin reader) may
  // still audit a finding while the process exits.
  alignas(SinkSlot) static std::byte storage[sizeof(SinkSlot)];
  static SinkSlot* const instance = std::construct_at(reinterpret_cast<SinkSlot*>(storage));
  return *instance;
}

}  // namespace

std::expected<std::string, std::string> loadOrCreateKey(const std::string& path) {
  struct stat st {};
  const bool missing = ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
  auto key = secrets::loadKeyFile(path, "audit key", /*create=*/true);
  if (key && missing) log::info("audit key created", {{"key_file", path}});
  return key;
}

std::expected<std::shared_ptr<Sink>, std::string> Sink::open(const config::AuditConfig& audit,
                                                             bool stdout_is_mcp) {
  if (audit.path == "-" && stdout_is_mcp) {
    return std::unexpected(
        "audit.path '-' (stdout) cannot be used with mcpgate stdio: stdout carries the MCP "
        "messages; set audit.path to a file");
  }
  auto key = loadOrCreateKey(audit.key_file);
  if (!key) return std::unexpected(key.error());
  if (audit.path == "-") return std::make_shared<Sink>("-", STDOUT_FILENO, std::move(*key));
  std::error_code ec;
  const fs::path dir = fs::path(audit.path).parent_path();
  if (!dir.empty() && !fs::exists(dir, ec)) fs::create_directories(dir, ec);
  if (ec)
    return std::unexpected("cannot create the audit log directory " + dir.string() + ": " +
                           ec.message());
  const int fd = ::open(audit.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return std::unexpected("cannot open the audit log " + audit.path + ": " +
                           common::errnoText(errno));
  }
  return std::make_shared<Sink>(audit.path, fd, std::move(*key));
}

Sink::Sink(std::string path, int fd, std::string key)
    : path_(std::move(path)), key_(std::move(key)), fd_(fd) {}

Sink::~Sink() {
  if (path_ != "-" && fd_ >= 0) ::close(fd_);
}

void Sink::write(std::string_view line) {
  std::string text(line);
  text += '\n';
  std::lock_guard lock(mu_);
  std::string_view left = text;
  int error = 0;
  while (!left.empty()) {
    const ssize_t n = ::write(fd_, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  if (error == 0) return;
  ++lost_;
  const auto now = std::chrono::steady_clock::now();
  if (last_error_ != std::chrono::steady_clock::time_point{} && now - last_error_ < kErrorEvery) {
    return;
  }
  last_error_ = now;
  log::error("cannot write the audit log; audit records are being lost",
             {{"path", path_}, {"error", common::errnoText(error)}, {"lines_lost", lost_}});
  lost_ = 0;
}

void Sink::reopen() {
  if (path_ == "-") return;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    log::error("cannot reopen the audit log; still writing to the old file",
               {{"path", path_}, {"error", common::errnoText(errno)}});
    return;
  }
  int old = fd;
  {
    std::lock_guard lock(mu_);
    std::swap(old, fd_);
  }
  ::close(old);
  log::info("audit log reopened", {{"path", path_}});
}

std::string Sink::keyedHash(std::string_view value) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(value.data()), value.size(), digest.data(),
           &length) == nullptr ||
      length < kHashBytes) {
    return {};
  }
  return "hmac-sha256:" + common::toHex(std::span<const unsigned char>(digest.data(), kHashBytes));
}

void setSink(std::shared_ptr<Sink> sink) {
  std::lock_guard lock(slot().mu);
  slot().sink.swap(sink);
  // The old sink (in `sink` now) closes after the lock is released.
}

std::shared_ptr<Sink> currentSink() {
  std::lock_guard lock(slot().mu);
  return slot().sink;
}

std::expected<void, std::string> start(const config::AuditConfig& audit, bool stdout_is_mcp) {
  if (!audit.enabled) return {};
  auto sink = Sink::open(audit, stdout_is_mcp);
  if (!sink) return std::unexpected(sink.error());
  log::info("audit log", {{"path", (*sink)->path()}, {"key_file", audit.key_file}});
  setSink(std::move(*sink));
  return {};
}

void reopen() {
  if (auto sink = currentSink()) sink->reopen();
}

void finding(const MessageContext& context, std::string_view method, const dlp::Finding& finding,
             std::string_view preview, std::string_view matched) {
  const std::string_view action = dlp::toString(finding.action);
  // A detector's finding names the signals that fired and the score, never the text.
  const bool detector = !finding.signals.empty();
  if (detector) preview = {};
  json signals = json::array();
  for (const dlp::Rule* s : finding.signals) signals.push_back(s->id);
  metrics::dlpFinding(finding.rule->id, action);

  json fields = common(context, method);
  fields["rule"] = finding.rule->id;
  fields["description"] = finding.rule->description;  // the service and kind of credential
  fields["category"] = dlp::toString(finding.rule->category);
  fields["severity"] = dlp::toString(finding.rule->severity);
  fields["action"] = action;
  fields["pointer"] = finding.pointer;
  fields["decoded_by"] = finding.decoded_by;
  fields["preview"] = preview;
  if (finding.in_key) fields["in_key"] = true;
  if (detector) {
    fields["signals"] = signals;
    fields["score"] = finding.score;
  }
  if (finding.action == dlp::Action::kLog) {
    log::info("dlp finding", fields);
  } else {
    log::warn("dlp finding", fields);
  }

  const auto sink = currentSink();
  if (!sink) return;
  nlohmann::ordered_json line = record("finding", context, method);
  line["rule"] = finding.rule->id;
  line["category"] = fields["category"];
  line["severity"] = fields["severity"];
  line["action"] = action;
  line["pointer"] = finding.pointer;
  line["decoded_by"] = finding.decoded_by;
  line["in_key"] = finding.in_key;
  line["preview"] = preview;
  if (detector) {
    line["signals"] = signals;
    line["score"] = finding.score;
  }
  // An empty match means the span could not be read back: no hash rather
  // than the hash of nothing, which would tie unrelated findings together.
  line["match_hash"] = matched.empty() ? json(nullptr) : json(sink->keyedHash(matched));
  sink->write(dump(line));
}

void findingCounted(const dlp::Finding& finding) {
  metrics::dlpFinding(finding.rule->id, dlp::toString(finding.action));
}

void findingsOverCap(const MessageContext& context, std::string_view method, std::size_t not_logged,
                     std::size_t total) {
  json fields = common(context, method);
  fields["findings"] = total;
  fields["not_logged"] = not_logged;
  fields["cap"] = kFindingLinesPerMessage;
  log::warn("dlp findings over the per-message cap; the rest only counted", fields);

  const auto sink = currentSink();
  if (!sink) return;
  nlohmann::ordered_json line = record("findings_over_cap", context, method);
  line["findings"] = total;
  line["not_logged"] = not_logged;
  sink->write(dump(line));
}

void decision(const MessageContext& context, std::string_view method, std::string_view decision,
              std::string_view reason) {
  metrics::policyDecision(decision);
  json fields = common(context, method);
  fields["decision"] = decision;
  fields["reason"] = reason;
  log::warn("policy decision", fields);

  const auto sink = currentSink();
  if (!sink) return;
  nlohmann::ordered_json line = record("decision", context, method);
  line["decision"] = decision;
  line["reason"] = reason;
  sink->write(dump(line));
}

void serverEvent(std::string_view event, std::string_view message, bool warn,
                 std::string_view server, std::string_view session,
                 const nlohmann::ordered_json& fields) {
  json log_fields = {{"server", server}, {"session", orNull(session)}};
  for (const auto& [key, value] : fields.items()) log_fields[key] = value;
  if (!message.empty()) log::write(warn ? log::Level::kWarn : log::Level::kInfo, message, log_fields);
  const auto sink = currentSink();
  if (!sink) return;
  nlohmann::ordered_json line;
  line["time"] = log::timestamp();
  line["event"] = event;
  line["client"] = nullptr;
  line["session"] = orNull(session);
  line["server"] = server;
  line["method"] = nullptr;
  line["tool"] = nullptr;
  line["direction"] = nullptr;
  for (const auto& [key, value] : fields.items()) line[key] = value;
  sink->write(dump(line));
}

}  // namespace mcpgate::gateway::audit
