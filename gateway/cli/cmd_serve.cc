// mcpgate serve -c FILE [--listen HOST:PORT] [--threads N] [--spawner SOCKET]

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <charconv>
#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common/loopback.h"
#include "config/address.h"
#include "config/config.h"
#include "gateway/cli/cli.h"
#include "gateway/cli/reload.h"
#include "gateway/cli/serve_common.h"
#include "gateway/guard/generation.h"
#include "gateway/http/http_server.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"
#include "gateway/observe/metrics.h"
#include "gateway/session/io_pool.h"
#include "gateway/session/lanes.h"
#include "gateway/session/mailbox.h"
#include "gateway/session/sessions.h"
#include "gateway/upstream/egress_link.h"
#include "gateway/upstream/upstream.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;

namespace {

// Polls until every server process is reaped or the deadline passes, then
// stops every worker.
void stopWhenChildrenGone(IoPool& pool, SessionTable& sessions,
                          std::chrono::steady_clock::time_point deadline) {
  auto timer = std::make_shared<asio::steady_timer>(pool.main(), std::chrono::milliseconds(20));
  timer->async_wait([&pool, &sessions, deadline, timer](boost::system::error_code) {
    if (sessions.childrenAlive() <= 0 || std::chrono::steady_clock::now() >= deadline) {
      if (sessions.childrenAlive() > 0) {
        log::error("servers still running at shutdown deadline",
                   {{"count", sessions.childrenAlive()}});
      }
      pool.stop();
      return;
    }
    stopWhenChildrenGone(pool, sessions, deadline);
  });
}

// Polls until no request is in flight or the deadline passes, then `then`.
// New sessions are refused meanwhile (SessionTable::drain).
void afterRequestsInFlight(asio::io_context& main, std::chrono::steady_clock::time_point deadline,
                           std::function<void()> then) {
  auto timer = std::make_shared<asio::steady_timer>(main, std::chrono::milliseconds(20));
  timer->async_wait([&main, deadline, then = std::move(then), timer](boost::system::error_code) {
    if (Mailbox::inFlight() > 0 && std::chrono::steady_clock::now() < deadline) {
      afterRequestsInFlight(main, deadline, std::move(then));
      return;
    }
    if (Mailbox::inFlight() > 0) {
      log::warn("requests still in flight at the end of the drain grace",
                {{"count", Mailbox::inFlight()}});
    }
    then();
  });
}

// Each session holds a client socket and its server's three pipes: the soft
// open-file limit (often 1024) would cap a gateway at a few hundred sessions,
// so it is raised to the hard limit the operator set.
void raiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    log::warn("cannot raise the open-file limit", {{"soft", before}, {"hard", limit.rlim_max}});
  }
}

}  // namespace

int runServe(Args args) {
  std::string config_path, listen_override, spawner;
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if ((a == "-c" || a == "--config") && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (a == "--listen" && i + 1 < args.size()) {
      listen_override = args[++i];
    } else if (a == "--spawner" && i + 1 < args.size()) {
      // Servers are started by mcpgate-spawner (root) on this socket: the gateway needs no root.
      spawner = args[++i];
    } else if (a == "--threads" && i + 1 < args.size()) {
      // Worker threads (IoPool); the default is one per core.
      const std::string_view text = args[++i];
      unsigned n = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || end != text.data() + text.size() || n == 0 || n > 256) {
        std::cerr << "mcpgate serve: --threads must be a number from 1 to 256\n";
        return 2;
      }
      workers = n;
    } else {
      std::cerr << "usage: mcpgate serve -c FILE [--listen HOST:PORT] [--threads N] "
                   "[--spawner SOCKET]\n";
      return 2;
    }
  }
  if (config_path.empty()) {
    std::cerr << "mcpgate serve: -c FILE is required\n";
    return 2;
  }
  // With a spawner, server secrets are its business: this process never
  // decrypts them and needs no key (the servers' env is built by the spawner).
  const config::LoadOptions load_options{.resolve_secrets = spawner.empty()};
  if (!spawner.empty()) startServersThrough(spawner);
  auto loaded = loadForServing(config_path, load_options);
  if (!loaded) return 1;
  auto config = *loaded;

  std::string host = config->listen_host;
  unsigned short port = config->listen_port;
  if (!listen_override.empty()) {
    auto parsed = config::parseHostPort(listen_override);
    if (!parsed) {
      std::cerr << "mcpgate serve: --listen " << listen_override << ": " << parsed.error() << "\n";
      return 2;
    }
    host = parsed->host;
    port = parsed->port;
  }
  // Before listening: a client must never reach a gateway whose rules failed to load.
  auto first = buildGeneration(config);
  if (!first) {
    std::cerr << "mcpgate serve: " << first.error() << "\n";
    return 1;
  }
  if (auto open = checkListenerAuth(host, *config); !open) {
    std::cerr << "mcpgate serve: " << open.error() << "\n";
    return 1;
  }
  if (!common::isLoopbackHost(host) && !config->auth.enabled()) {
    log::warn("listening beyond loopback without authentication (insecure_no_auth: true)",
              {{"host", host}});
  }
  if (!common::isLoopbackHost(host) && config->auth.enabled() && !config->tls.enabled()) {
    log::warn(
        "bearer tokens travel in clear text beyond loopback: add a tls: section or put a "
        "TLS-terminating proxy in front",
        {{"host", host}});
  }

  if (auto audit_log = audit::start(config->audit, /*stdout_is_mcp=*/false); !audit_log) {
    std::cerr << "mcpgate serve: " << audit_log.error() << "\n";
    return 1;
  }

  ::signal(SIGPIPE, SIG_IGN);  // a dead child's pipe must not kill the gateway
  raiseOpenFileLimit();
  IoPool pool(workers);
  auto current = std::make_shared<CurrentGeneration>(*first);
  SessionTable sessions(pool, current);
  HttpServer server(pool, current, sessions);
  auto bound = server.listen(host == "localhost" ? "127.0.0.1" : host, port);
  if (!bound) {
    log::error("cannot start", {{"error", bound.error()}});
    return 1;
  }
  setOwnListeners({*bound});  // egress proxies refuse them unless an entry names them
  std::string address = bound->address().is_v6() ? "[" + bound->address().to_string() + "]"
                                                 : bound->address().to_string();
  address += ":" + std::to_string(bound->port());
  std::vector<std::string> names;
  for (const auto& [name, s] : config->servers) names.push_back(name);

  Reloader reloader(pool.main(), config_path, host, current, sessions, load_options);
  reloader.start();

  asio::signal_set signals(pool.main(), SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int sig) {
    if (ec) return;
    // Drain: not ready and no new session at once; requests in flight get
    // session.grace to finish; then the sessions end and their servers get
    // session.grace again to exit.
    metrics::setNotReady("shutting down");
    sessions.drain();
    log::info("shutting down", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"},
                                {"in_flight", Mailbox::inFlight()}});
    afterRequestsInFlight(
        pool.main(), std::chrono::steady_clock::now() + config->session.grace, [&] {
          server.stop();
          sessions.closeAll("the gateway is shutting down");
          LanePool::instance().clear();  // the modern clients' lanes (gateway/session/lanes.h)
          stopWhenChildrenGone(
              pool, sessions,
              std::chrono::steady_clock::now() + config->session.grace + std::chrono::seconds(2));
        });
  });

  // Announced once SIGHUP, SIGINT and SIGTERM have their handlers: a signal sent at once on
  // seeing this line (a test, a supervisor) must not meet the default action (SIGHUP's ends
  // the process).
  log::info("listening",
            {{"address", address},
             {"url", (config->tls.enabled() ? "https://" : "http://") + address + "/mcp/<server>"},
             {"auth", config->auth.enabled() ? "on" : "off"},
             {"spawner", spawner.empty() ? "none: servers are started here" : spawner},
             {"servers", names},
             {"config", config->source}});
  metrics::setReady();
  pool.run();
  log::info("stopped");
  return 0;
}

}  // namespace mcpgate::gateway
