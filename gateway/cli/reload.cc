#include "gateway/cli/reload.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "common/errno_text.h"
#include "config/address.h"
#include "gateway/cli/serve_common.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"

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

// The inotify watch on the directories of the config file, the JWKS file and
// the rule packs: a directory, not the file, because a rename-into-place
// replaces the file's inode and a watch on the old one would go quiet. Each
// directory reloads only for the files the config reads from it, so an
// unrelated file written beside the config does not.
struct Reloader::Watch {
  // What, in one watched directory, the config reads.
  struct Wanted {
    std::set<std::string> names;  // these files
    bool rule_files = false;      // and every rule file (a rules: directory)
  };

  asio::posix::stream_descriptor fd;
  asio::signal_set hangup;
  std::mutex mu;                   // the watch descriptors, replaced after a reload
  std::map<int, Wanted> watching;  // watch descriptor -> what it is for
  std::array<char, 16 * 1024> buffer{};

  explicit Watch(asio::io_context& io) : fd(io), hangup(io, SIGHUP) {}

  static std::map<fs::path, Wanted> wantedDirs(const config::Config& config) {
    std::map<fs::path, Wanted> dirs;
    auto file = [&dirs](const fs::path& path) {
      const fs::path dir = path.parent_path();
      dirs[dir.empty() ? fs::path(".") : dir].names.insert(path.filename());
    };
    file(config.source);
    if (config.auth.jwt) file(config.auth.jwt->jwks_file);
    for (const std::string& rules : config.dlp.rules) {
      std::error_code ec;
      if (fs::is_directory(rules, ec)) {
        dirs[fs::path(rules)].rule_files = true;
      } else {
        file(rules);
      }
    }
    return dirs;
  }

  void watch(const config::Config& config) {
    const std::map<fs::path, Wanted> dirs = wantedDirs(config);
    std::lock_guard lock(mu);
    for (const auto& [wd, wanted] : watching) ::inotify_rm_watch(fd.native_handle(), wd);
    watching.clear();
    for (const auto& [dir, wanted] : dirs) {
      int wd = ::inotify_add_watch(
          fd.native_handle(), dir.c_str(),
          IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR);
      if (wd < 0) {
        log::warn("cannot watch for config changes; SIGHUP still reloads",
                  {{"dir", dir.string()}, {"error", common::errnoText(errno)}});
        continue;
      }
      // Two spellings of one directory get one descriptor: what both want.
      Wanted& merged = watching[wd];
      merged.names.insert(wanted.names.begin(), wanted.names.end());
      merged.rule_files = merged.rule_files || wanted.rule_files;
    }
  }

  // True when one of the events in `data` is about a file the config reads.
  bool relevant(const char* data, std::size_t size) {
    std::lock_guard lock(mu);
    for (std::size_t at = 0; at + sizeof(inotify_event) <= size;) {
      const auto* event = reinterpret_cast<const inotify_event*>(data + at);
      at += sizeof(inotify_event) + event->len;
      if ((event->mask & IN_Q_OVERFLOW) != 0) return true;
      if (event->len == 0) continue;  // about the directory itself
      auto wanted = watching.find(event->wd);
      if (wanted == watching.end()) continue;  // a descriptor removed since
      const std::string name(event->name);
      if (wanted->second.names.contains(name) ||
          (wanted->second.rule_files && isRuleFileName(name))) {
        return true;
      }
    }
    return false;
  }
};

Reloader::Reloader(asio::io_context& io, std::string config_path, std::string listen_host,
                   std::shared_ptr<CurrentGeneration> current, SessionTable& sessions,
                   config::LoadOptions load_options)
    : io_(io),
      config_path_(std::move(config_path)),
      listen_host_(std::move(listen_host)),
      load_options_(load_options),
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
              {{"error", common::errnoText(errno)}});
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
  auto config = config::loadConfig(config_path_, load_options_);
  if (!config) {
    log::error("config reload failed; keeping the running config",
               {{"trigger", why}, {"generation", old->number}, {"error", config.error().message}});
    return;
  }
  if (auto open = checkListenerAuth(listen_host_, **config); !open) {
    log::error("config reload failed; keeping the running config",
               {{"trigger", why}, {"generation", old->number}, {"error", open.error()}});
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
  // audit::start opens nothing for a config without audit: the old sink
  // would go on being written.
  if (!now.audit.enabled && was.enabled) audit::setSink(nullptr);
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
