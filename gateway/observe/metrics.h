#pragma once

// Process-wide counters, gauges and histograms, served at /metrics in the
// Prometheus text format (0.0.4), and the readiness /readyz reports. Each
// function records one event; all are thread-safe and cheap (a short mutex
// to find the labelled series, then atomics).
//
// Every label value is bounded: servers and rule ids come from the config,
// methods are mapped to the MCP method names (others are "other"), and each
// metric holds at most a fixed number of series (the rest count as "other").

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgate::gateway::metrics {

using Duration = std::chrono::steady_clock::duration;

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// One HTTP reply (its headers sent). `server` is empty for paths that name no
// configured server.
void httpReply(std::string_view server, unsigned status, Duration elapsed);
// One JSON-RPC request from a client ended: answered ("ok", "error"), refused
// by the gateway ("blocked", "invalid"), or given up ("timeout", "cancelled",
// "closed").
void requestDone(std::string_view server, std::string_view method, std::string_view outcome,
                 Duration elapsed);
void dlpFinding(std::string_view rule, std::string_view action);
void policyDecision(std::string_view decision);
void sessionsChanged(int delta);
void childrenChanged(int delta);
void spawned(std::string_view server);
void reaped(std::string_view server);
void sandboxRefused(std::string_view server);

// The MCP method name when it is one the protocol defines, else "other".
[[nodiscard]] std::string_view methodLabel(std::string_view method);
// A label value as the exposition format wants it: \ " and newline escaped.
[[nodiscard]] std::string escapeLabelValue(std::string_view value);

// Every metric, in the Prometheus text format; with `visible`, the series of
// a server it refuses are left out (a client sees only its own servers).
using ServerFilter = std::function<bool(std::string_view server)>;
[[nodiscard]] std::string render(const ServerFilter& visible = {});

// Readiness: false (with the reason) until the gateway listens, and again
// once it starts shutting down.
void setReady();
void setNotReady(std::string reason);
// The reason the gateway is not ready, or nullopt when it is.
[[nodiscard]] std::optional<std::string> notReadyReason();

}  // namespace mcpgate::gateway::metrics
