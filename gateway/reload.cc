#include "gateway/reload.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <set>
#include <vector>

#include "config/address.h"
#include "gateway/audit.h"
#include "gateway/log.h"
#include "gateway/serve_common.h"

namespace mcpgate::gateway {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

// Editors and config management write a file several times in a row, or
// write a temporary file and rename it: one reload once the writes settle.
constexpr auto kSettle = std::chrono::milliseconds(200);

bool isRuleFileName(std::string_view name) {
  return name.ends_with(".yaml") || name.ends_with(".yml");
}

}  // namespace

// The inotify watch on the directories of the config file and the rule
// packs: a directory, not the file, because a rename-into-place replaces the
// file's inode and a watch on the old one would go quiet.
struct Reloader::Watch {
  asio::posix::stream_descriptor fd;
  asio::signal_set hangup;
  std::mutex mu;  // the watch descriptors, replaced after a reload
  std::set<int> descriptors;
  std::string config_name;
  std::array<char, 16 * 1024> buffer{};

  explicit Watch(asio::io_context& io) : fd(io), hangup(io, SIGHUP) {}

  void watch(const config::Config& config) {
    std::set<fs::path> dirs = {fs::path(config.source).parent_path()};
    for (const std::string& rules : config.dlp.rules) {
      std::error_code ec;
      dirs.insert(fs::is_directory(rules, ec) ? fs::path(rules) : fs::path(rules).parent_path());
    }
    std::lock_guard lock(mu);
    config_name = fs::path(config.source).filename();
    for (int wd : descriptors) ::inotify_rm_watch(fd.native_handle(), wd);
    descriptors.clear();
    for (const fs::path& dir : dirs) {
      int wd = ::inotify_add_watch(
          fd.native_handle(), dir.c_str(),
          IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR);
      if (wd < 0) {
        log::warn("cannot watch for config changes; SIGHUP still reloads",
                  {{"dir", dir.string()}, {"error", std::strerror(errno)}});
      } else {
        descriptors.insert(wd);
      }
    }
  }

  // True when one of the events in `data` is about the config or a rule file.
  bool relevant(const char* data, std::size_t size) {
    std::lock_guard lock(mu);
    for (std::size_t at = 0; at + sizeof(inotify_event) <= size;) {
      const auto* event = reinterpret_cast<const inotify_event*>(data + at);
      const std::string_view name = event->len > 0 ? std::string_view(event->name) : "";
      if ((event->mask & IN_Q_OVERFLOW) != 0 || name == config_name || isRuleFileName(name)) {
        return true;
      }
      at += sizeof(inotify_event) + event->len;
    }
    return false;
  }
};

Reloader::Reloader(asio::io_context& io, std::string config_path,
                   std::shared_ptr<CurrentGeneration> current, SessionTable& sessions)
    : io_(io),
      config_path_(std::move(config_path)),
      current_(std::move(current)),
      sessions_(sessions),
      watch_(std::make_unique<Watch>(io)) {}

Reloader::~Reloader() {
  thread_.request_stop();
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Reloader::start() {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    log::warn("cannot watch for config changes; SIGHUP still reloads",
              {{"error", std::strerror(errno)}});
  } else {
    watch_->fd.assign(fd);
    watch_->watch(*current_->get()->config);
    readEvents();
  }
  waitForHangup();
  thread_ = std::jthread([this](const std::stop_token& stop) { worker(stop); });
}

void Reloader::readEvents() {
  watch_->fd.async_read_some(asio::buffer(watch_->buffer),
                             [this](boost::system::error_code ec, std::size_t n) {
                               if (ec) return;  // closed at shutdown
                               if (watch_->relevant(watch_->buffer.data(), n)) {
                                 request("a watched file changed");
                               }
                               readEvents();
                             });
}

void Reloader::waitForHangup() {
  watch_->hangup.async_wait([this](boost::system::error_code ec, int) {
    if (ec) return;
    audit::reopen();  // logrotate moved it away, whether or not the config changed
    request("SIGHUP");
    waitForHangup();
  });
}

void Reloader::request(const std::string& why) {
  {
    std::lock_guard lock(mu_);
    if (asked_.empty()) asked_ = why;
  }
  wake_.notify_all();
}

bool Reloader::pending() const {
  std::lock_guard lock(mu_);
  return running_ || !asked_.empty();
}

void Reloader::worker(const std::stop_token& stop) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!wake_.wait(lock, stop, [this] { return !asked_.empty(); })) return;
    // Let a burst of writes settle: asks that come meanwhile join this reload.
    (void)wake_.wait_for(lock, stop, kSettle, [] { return false; });
    if (stop.stop_requested()) return;
    std::string why = std::move(asked_);
    asked_.clear();
    running_ = true;
    lock.unlock();
    reload(why);
    lock.lock();
    running_ = false;
  }
}

void Reloader::reload(const std::string& why) {
  const std::shared_ptr<const Generation> old = current_->get();
  auto config = config::loadConfig(config_path_);
  if (!config) {
    log::error("config reload failed; keeping the running config",
               {{"trigger", why}, {"generation", old->number}, {"error", config.error().message}});
    return;
  }
  auto next = buildGeneration(*config, old->number + 1);
  if (!next) {
    log::error("config reload failed; keeping the running config",
               {{"trigger", why}, {"generation", old->number}, {"error", next.error()}});
    return;
  }
  const config::Config& now = *(*next)->config;
  const config::AuditConfig& was = old->config->audit;
  if (now.audit.enabled != was.enabled || now.audit.path != was.path ||
      now.audit.key_file != was.key_file) {
    // Opened before the swap: an audit log that cannot be opened keeps the old config.
    if (auto started = audit::start(now.audit, /*stdout_is_mcp=*/false); !started) {
      log::error("config reload failed; keeping the running config",
                 {{"trigger", why}, {"generation", old->number}, {"error", started.error()}});
      return;
    }
  }
  if (now.listen_host != old->config->listen_host || now.listen_port != old->config->listen_port) {
    log::warn("the listen address changed in the config; it takes effect at the next restart",
              {{"listening_as_configured",
                config::formatHostPort(old->config->listen_host, old->config->listen_port)}});
  }
  if (now.tls.cert_file != old->config->tls.cert_file ||
      now.tls.key_file != old->config->tls.key_file) {
    log::warn("the tls section changed in the config; it takes effect at the next restart", {});
  }
  (void)log::setLevel(now.log_level);
  current_->set(*next);
  sessions_.closeRemovedServers(now);
  watch_->watch(now);
  std::vector<std::string> servers;
  for (const auto& [name, server] : now.servers) servers.push_back(name);
  log::info("config reloaded", {{"trigger", why},
                                {"generation", (*next)->number},
                                {"config", now.source},
                                {"servers", servers}});
  announceServers(now);
}

}  // namespace mcpgate::gateway
