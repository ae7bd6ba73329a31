#pragma once

// Which MCP era a server speaks, decided as the 2026-07-28 revision says a
// dual-era client decides it (basic/versioning.mdx "Backward Compatibility",
// basic/transports/stdio.mdx and streamable-http.mdx "Backward
// Compatibility"), and as the official SDK v2 client classifies its probe:
//
// - stdio: send server/discover with the modern envelope. A DiscoverResult
//   naming a version we speak: modern. UnsupportedProtocolVersion (-32022)
//   naming a modern version we speak: modern (use that one); naming only
//   legacy versions: legacy. Any other error, no answer in time, or the
//   stream closing: legacy. Never keyed to one error code.
// - HTTP: a modern POST. 2xx with a DiscoverResult: modern. 401/403: an
//   error (auth, not era evidence). 5xx: an error. Another 4xx: its body
//   read as above when it is a JSON-RPC error, else legacy.
//
// The era is a property of the server, so the verdict is kept per process
// (upstream/era_bridge.h keeps it for its server process). The
// `protocol:` config key overrides the detection: legacy never probes;
// modern probes (the discover result is what a legacy client's initialize is
// answered from) but never falls back.
//
// Pure: JSON in, a verdict out; no I/O.

#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gateway/mcp/era.h"

namespace mcpgate::gateway::bridge {

using nlohmann::json;

// How a server answered the probe.
struct ProbeOutcome {
  enum class Kind {
    kResponse,      // a JSON-RPC response (result or error) to the probe
    kHttpStatus,    // HTTP: a non-2xx status; `body` is the response body text
    kNoAnswer,      // no answer within the probe timeout, or the stream closed
    kNetworkError,  // HTTP: could not connect or send
  };
  Kind kind = Kind::kNoAnswer;
  json response = nullptr;   // kResponse: the whole JSON-RPC response
  unsigned http_status = 0;  // kHttpStatus
  std::string body;          // kHttpStatus: the body, as received
  std::string detail;        // kNoAnswer / kNetworkError: what happened
};

enum class ProbeTransport : std::uint8_t { kStdio, kHttp };

struct EraVerdict {
  Era era = Era::kUnknown;
  // Modern: the revision to put in the envelope, and the server/discover
  // result (empty object when the server answered -32022 instead).
  std::string version;
  json discover = json::object();
};

// The server/discover probe request (JSON-RPC id `id`), carrying the modern
// envelope with the gateway as the client and no client capabilities.
[[nodiscard]] json discoverRequest(const json& id, std::string_view gateway_version);

// How an HTTP probe ended, from the one message the remote upstream hands
// back for it (upstream/remote_upstream.h): the server's JSON-RPC response
// (a 4xx with a JSON-RPC error body comes as that error), or the gateway's
// own error for an exchange that gave none: data.status (an HTTP status
// without a JSON-RPC body) is kHttpStatus, data.reason upstream_timeout
// kNoAnswer, any other reason kNetworkError.
[[nodiscard]] ProbeOutcome httpProbeOutcome(const json& answer);

// The era of a server from its answer to the probe, or why there is none
// (the probe is refused for auth, the server failed, or `protocol: modern`
// and the server is not). `choice` kLegacy needs no probe: callers skip it.
[[nodiscard]] std::expected<EraVerdict, std::string> decideEra(gateway::EraChoice choice,
                                                               ProbeTransport transport,
                                                               const ProbeOutcome& outcome);

}  // namespace mcpgate::gateway::bridge
