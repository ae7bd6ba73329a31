#pragma once

// Between a session and its server process: finds the server's era when a
// legacy (2025) client opens the session, and when the server is modern
// (2026-07-28) speaks modern MCP to it in the client's place, so the session
// above keeps seeing the legacy conversation it knows (initialize, server
// requests, list-changed notifications). DLP, policy, pinning and audit stay
// in the session and see every message the client sends or receives:
// inputRequests reach the session as server requests (scanned as responses),
// the client's answers come back through it (scanned as requests) before they
// become inputResponses.
//
// The era is probed on the client's initialize, as the stdio binding says
// (server/discover, then initialize on any answer that is not a modern one, or
// none in kProbeTimeout); a server found legacy is not probed again in this
// gateway process until one of its processes refuses initialize. A remote
// (`url:`) server is probed by the HTTP rules (a modern POST; legacy on a 4xx
// without a modern error body) and its verdict, either era, is kept for its
// endpoint URL: every session to it after the first starts without a probe
// (a modern one's initialize is answered from the kept server/discover
// result), until the endpoint refuses a bridged request as a legacy one
// would, or an initialize. `protocol:
// legacy` skips the probe, `protocol: modern` refuses a server that is not. A session that
// opens with anything but initialize (a modern client's lane, which probes
// for itself) is passed through untouched. Pure bridging lives in
// gateway/bridge/; this is its I/O.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gateway/bridge/era_probe.h"
#include "gateway/bridge/legacy_client.h"
#include "gateway/mcp/era.h"
#include "gateway/upstream/upstream.h"

namespace mcpgate::gateway {

// How a server's era is found and under which key the verdict is kept: a
// stdio server's by its name, a remote one's by its endpoint URL.
struct EraProbeTarget {
  bridge::ProbeTransport transport = bridge::ProbeTransport::kStdio;
  std::string key;  // empty: the server's name
};

class EraBridge final : public Upstream, public std::enable_shared_from_this<EraBridge> {
 public:
  // A legacy server that ignores a request before initialize costs this much once per
  // process; a modern one still starting (node under load) must not be taken for one.
  static constexpr std::chrono::milliseconds kProbeTimeout{10000};
  // Client requests bridged at once (each may wait for the client's input).
  static constexpr std::size_t kMaxBridged = 1024;
  // Messages a client sends before its initialize is answered, at most.
  static constexpr std::size_t kMaxHeld = 256;
  // How long the client has to answer a round of the server's input requests
  // (the SDK's own default per round); then the round is forgotten.
  static constexpr std::chrono::minutes kInputTimeout{10};

  using StartInner =
      std::function<std::expected<std::shared_ptr<Upstream>, std::string>(Callbacks inner)>;
  using Probe = EraProbeTarget;

  // Starts the server through `start_inner` with callbacks that lead here;
  // `outer` are the session's. `max_depth`: the JSON nesting limit.
  [[nodiscard]] static std::expected<std::shared_ptr<Upstream>, std::string> start(
      boost::asio::any_io_executor executor, EraChoice choice, std::string server,
      std::uint32_t max_depth, Callbacks outer, const StartInner& start_inner, Probe probe = {});

  void send(mcp::Message message) override;
  void terminate(std::string why) override;

  EraBridge(boost::asio::any_io_executor executor, EraChoice choice, std::string server,
            std::uint32_t max_depth, Callbacks outer, Probe probe = {});

 private:
  enum class State { kFirst, kProbing, kPassThrough, kModern };

  // A client request sent upstream, until its final answer.
  struct Bridged {
    nlohmann::json client_id;
    nlohmann::json request;  // as sent upstream (envelope included), for retries
    int rounds = 0;
    std::chrono::steady_clock::time_point asked{};  // when the round in progress began
    // The round in progress: gateway input id -> its inputRequests key.
    std::map<std::string, std::string> waiting;
    nlohmann::json answers = nlohmann::json::object();
    std::optional<std::string> request_state;
  };

  void fromServer(mcp::Message message);
  void probeAnswered(const nlohmann::json& response);
  void probeTimedOut();
  void decide(const bridge::ProbeOutcome& outcome);
  // keep: remember the server as legacy (a verdict, not a probe that could not tell).
  void becomePassThrough(bool keep = true);
  // A server skipped the probe as known legacy: its answer to initialize
  // confirms it, or (refused) makes the next process probe again.
  void confirmLegacy(const mcp::Message& message);
  // A bridged request to a remote refused as a legacy server would refuse it:
  // the kept modern verdict is dropped, so the next session probes again.
  void doubtModern(const nlohmann::json& response);
  // A modern client's lane opens a remote with its own server/discover: a
  // kept verdict answers it (so an endpoint is probed once, whichever era
  // its clients speak), and a fresh answer is kept.
  void laneProbe(mcp::Message message);
  void noteLaneProbe(const nlohmann::json& response);
  void becomeModern(const nlohmann::json& discover, std::string version);
  void toClient(const nlohmann::json& message);
  void toClientError(const nlohmann::json& id, int code, const std::string& message);
  void fromClientModern(nlohmann::json message);
  void fromServerModern(nlohmann::json message);
  void clientAnswered(const std::string& input_id, const nlohmann::json& message);
  void finishRound(const std::string& upstream_key);
  void sendUpstream(const nlohmann::json& message);
  void renewListen();
  // Forgets rounds the client left unanswered past kInputTimeout.
  void forgetAbandoned();

  boost::asio::any_io_executor executor_;
  const EraChoice choice_;
  const std::string server_;
  const std::uint32_t max_depth_;
  const Probe probe_;
  Callbacks outer_;
  std::shared_ptr<Upstream> inner_;
  boost::asio::steady_timer probe_timer_;

  State state_ = State::kFirst;
  std::string probe_id_;
  std::string unconfirmed_initialize_;  // id key of an initialize sent unprobed
  std::string lane_probe_;              // id key of a lane's server/discover sent on
  nlohmann::json initialize_;           // the client's, while probing
  std::deque<mcp::Message> held_;       // the client's messages while probing
  bridge::ClientEnvelope envelope_;
  nlohmann::json server_capabilities_ = nlohmann::json::object();
  std::set<std::string> subscriptions_;
  std::string listen_id_;  // the open subscriptions/listen upstream, if any
  std::uint64_t next_id_ = 1;
  // Upstream request id key -> the client request it carries.
  std::map<std::string, Bridged> bridged_;
  // Gateway input request id -> the upstream id key of its request.
  std::map<std::string, std::string> inputs_;
};

}  // namespace mcpgate::gateway
