#include "gateway/observe/metrics.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#ifndef MCPGATE_VERSION
#define MCPGATE_VERSION "unknown"
#endif

namespace mcpgate::gateway::metrics {
namespace {

// More series than this in one metric means a label is fed by something
// unbounded: the rest are counted together under "other" rather than letting
// the scrape (and the gateway's memory) grow without end.
constexpr std::size_t kMaxSeries = 1000;

// Seconds; from a cached reply to a slow tool call.
constexpr std::array<double, 14> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                             0.25,  0.5,    1,     2.5,  5,     10,   30};

enum class Type { kCounter, kGauge, kHistogram };

struct Series {
  std::atomic<std::uint64_t> count{0};  // counter value, or histogram observations
  std::atomic<std::int64_t> gauge{0};
  std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> buckets{};  // last: +Inf
  std::atomic<double> sum{0};
};

class Family {
 public:
  Family(std::string name, std::string help, Type type, std::vector<std::string> labels)
      : name_(std::move(name)), help_(std::move(help)), type_(type), labels_(std::move(labels)) {}

  Series& at(std::initializer_list<std::string_view> values) {
    // Looked up by the labels joined (each ended by a NUL, which no label
    // value the gateway passes holds) in a per-thread buffer: a series that
    // exists costs one hash and no allocation (four lookups per call).
    thread_local std::string joined;
    joined.clear();
    for (std::string_view v : values) joined.append(v).push_back('\0');
    std::lock_guard lock(mu_);
    if (auto hit = index_.find(std::string_view(joined)); hit != index_.end()) return *hit->second;
    std::vector<std::string> key(values.begin(), values.end());
    if (series_.size() >= kMaxSeries) std::ranges::fill(key, std::string("other"));
    auto& slot = series_[std::move(key)];
    if (!slot) slot = std::make_unique<Series>();
    if (index_.size() < kMaxSeries * 2) index_.emplace(joined, slot.get());
    return *slot;
  }

  void render(std::string& out, const ServerFilter& visible) const {
    static constexpr std::string_view kTypeNames[] = {"counter", "gauge", "histogram"};
    out += "# HELP " + name_ + " " + help_ + "\n";
    out += "# TYPE " + name_ + " " + std::string(kTypeNames[static_cast<int>(type_)]) + "\n";
    const auto server_label = std::ranges::find(labels_, "server") - labels_.begin();
    std::lock_guard lock(mu_);
    for (const auto& [values, series] : series_) {
      if (visible && static_cast<std::size_t>(server_label) < values.size() &&
          !visible(values[server_label])) {
        continue;
      }
      const std::string labels = labelText(values);
      switch (type_) {
        case Type::kCounter:
          out += name_ + braced(labels) + " " + std::to_string(series->count.load()) + "\n";
          break;
        case Type::kGauge:
          out += name_ + braced(labels) + " " + std::to_string(series->gauge.load()) + "\n";
          break;
        case Type::kHistogram:
          renderHistogram(out, labels, *series);
          break;
      }
    }
  }

 private:
  std::string labelText(const std::vector<std::string>& values) const {
    std::string text;
    for (std::size_t i = 0; i < labels_.size() && i < values.size(); ++i) {
      if (i > 0) text += ',';
      text += labels_[i] + "=\"" + escapeLabelValue(values[i]) + "\"";
    }
    return text;
  }

  static std::string braced(const std::string& labels) {
    return labels.empty() ? std::string() : "{" + labels + "}";
  }

  void renderHistogram(std::string& out, const std::string& labels, const Series& series) const {
    const std::string prefix = labels.empty() ? "" : labels + ",";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= kBuckets.size(); ++i) {
      cumulative += series.buckets[i].load();
      std::string le = "+Inf";
      if (i < kBuckets.size()) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%g", kBuckets[i]);
        le = buffer;
      }
      out +=
          name_ + "_bucket{" + prefix + "le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
    }
    char sum[64];
    std::snprintf(sum, sizeof sum, "%.9g", series.sum.load());
    out += name_ + "_sum" + braced(labels) + " " + sum + "\n";
    // The buckets' total, not `count`: a scrape during an observation must
    // still see _count equal to the +Inf bucket.
    out += name_ + "_count" + braced(labels) + " " + std::to_string(cumulative) + "\n";
  }

  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> labels_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Series>> series_;  // in render's order
  // Joined labels -> series, for at(); bounded like series_ (labels past the
  // limit share "other" and are looked up in series_).
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Series*, Hash, std::equal_to<>> index_;
};

void observe(Series& series, Duration elapsed) {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  const auto bucket = std::ranges::lower_bound(kBuckets, seconds) - kBuckets.begin();
  series.buckets[static_cast<std::size_t>(bucket)].fetch_add(1);
  series.sum.fetch_add(seconds);
}

struct Registry {
  Family build_info{
      "mcpgate_build_info", "The running mcpgate's version (always 1).", Type::kGauge, {"version"}};
  Family http_requests{"mcpgate_http_requests_total",
                       "HTTP replies sent, by MCP server (empty for other paths) and status.",
                       Type::kCounter,
                       {"server", "status"}};
  Family http_duration{"mcpgate_http_request_duration_seconds",
                       "Time from an HTTP request read to its reply's headers sent.",
                       Type::kHistogram,
                       {"server"}};
  Family requests{"mcpgate_jsonrpc_requests_total",
                  "JSON-RPC requests from clients, by server, method and how they ended.",
                  Type::kCounter,
                  {"server", "method", "outcome"}};
  Family request_duration{"mcpgate_request_duration_seconds",
                          "Time from a JSON-RPC request received to its answer.",
                          Type::kHistogram,
                          {"server", "method"}};
  Family findings{"mcpgate_dlp_findings_total",
                  "DLP findings, by rule and the action taken.",
                  Type::kCounter,
                  {"rule", "action"}};
  Family decisions{"mcpgate_policy_decisions_total",
                   "Policy decisions about messages.",
                   Type::kCounter,
                   {"decision"}};
  Family sessions{"mcpgate_sessions", "MCP sessions alive.", Type::kGauge, {}};
  Family children{"mcpgate_children", "MCP server processes not yet reaped.", Type::kGauge, {}};
  Family spawns{
      "mcpgate_spawns_total", "MCP server processes started.", Type::kCounter, {"server"}};
  Family reaps{"mcpgate_reaps_total",
               "MCP server processes that exited and were reaped.",
               Type::kCounter,
               {"server"}};
  Family refusals{"mcpgate_sandbox_refusals_total",
                  "Server starts the sandbox refused (a layer it could not enforce).",
                  Type::kCounter,
                  {"server"}};

  Registry() {
    build_info.at({MCPGATE_VERSION}).gauge = 1;
    // Present from the start, so a dashboard shows 0 rather than no data.
    (void)sessions.at({});
    (void)children.at({});
  }

  std::mutex readiness_mu;
  std::optional<std::string> not_ready = "starting";
};

Registry& registry() {
  // Never destroyed: a detached thread (mcpgate stdio's stdin reader) may
  // still count a request while the process exits.
  alignas(Registry) static std::byte storage[sizeof(Registry)];
  static Registry* const instance = std::construct_at(reinterpret_cast<Registry*>(storage));
  return *instance;
}

constexpr std::array<std::string_view, 28> kMethods = {
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/roots/list_changed",
    "notifications/tools/list_changed",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
};

}  // namespace

std::string_view methodLabel(std::string_view method) {
  for (std::string_view known : kMethods) {
    if (known == method) return known;
  }
  return "other";
}

std::string escapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void httpReply(std::string_view server, unsigned status, Duration elapsed) {
  registry().http_requests.at({server, std::to_string(status)}).count.fetch_add(1);
  observe(registry().http_duration.at({server}), elapsed);
}

void requestDone(std::string_view server, std::string_view method, std::string_view outcome,
                 Duration elapsed) {
  const std::string_view label = methodLabel(method);
  registry().requests.at({server, label, outcome}).count.fetch_add(1);
  observe(registry().request_duration.at({server, label}), elapsed);
}

void dlpFinding(std::string_view rule, std::string_view action) {
  registry().findings.at({rule, action}).count.fetch_add(1);
}

void policyDecision(std::string_view decision) {
  registry().decisions.at({decision}).count.fetch_add(1);
}

void sessionsChanged(int delta) { registry().sessions.at({}).gauge.fetch_add(delta); }
void childrenChanged(int delta) { registry().children.at({}).gauge.fetch_add(delta); }
void spawned(std::string_view server) { registry().spawns.at({server}).count.fetch_add(1); }
void reaped(std::string_view server) { registry().reaps.at({server}).count.fetch_add(1); }
void sandboxRefused(std::string_view server) {
  registry().refusals.at({server}).count.fetch_add(1);
}

std::string render(const ServerFilter& visible) {
  Registry& r = registry();
  std::string out;
  for (const Family* family :
       {&r.build_info, &r.http_requests, &r.http_duration, &r.requests, &r.request_duration,
        &r.findings, &r.decisions, &r.sessions, &r.children, &r.spawns, &r.reaps, &r.refusals}) {
    family->render(out, visible);
  }
  return out;
}

void setReady() {
  std::lock_guard lock(registry().readiness_mu);
  registry().not_ready.reset();
}

void setNotReady(std::string reason) {
  std::lock_guard lock(registry().readiness_mu);
  registry().not_ready = std::move(reason);
}

std::optional<std::string> notReadyReason() {
  std::lock_guard lock(registry().readiness_mu);
  return registry().not_ready;
}

}  // namespace mcpgate::gateway::metrics
