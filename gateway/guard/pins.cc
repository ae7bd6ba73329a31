#include "gateway/guard/pins.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>

#include "common/digest.h"
#include "common/encoding.h"
#include "common/errno_text.h"
#include "sandbox/fd.h"

namespace mcpgate::gateway {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A server that invents tool names on every listing must not grow the file
// without bound; far more tools than any real server offers.
constexpr std::size_t kMaxToolsPerServer = 4096;

// Exclusive flock on the pins directory while a read-modify-write runs, so a
// gateway and `mcpgate pins approve` never overwrite each other's update.
class DirLock {
 public:
  explicit DirLock(const std::string& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_.get() >= 0) {
      while (::flock(fd_.get(), LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }

 private:
  sandbox::UniqueFd fd_;
};

std::expected<void, std::string> ensurePrivateDir(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return std::unexpected("cannot create " + dir.string() + ": " + common::errnoText());
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    return std::unexpected("cannot use " + dir.string() + ": " + common::errnoText());
  }
  if (!S_ISDIR(st.st_mode)) return std::unexpected(dir.string() + " is not a directory");
  // Whoever can write here can approve any tool.
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    return std::unexpected(dir.string() + " is owned by another user or writable by others");
  }
  return {};
}

std::expected<ServerPins, std::string> parsePins(const std::string& text, const std::string& path) {
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("tools") ||
      !doc["tools"].is_object()) {
    return std::unexpected(path + " is not a pin file (expected {\"tools\": {...}})");
  }
  ServerPins pins;
  for (const auto& [name, entry] : doc["tools"].items()) {
    if (!entry.is_object()) return std::unexpected(path + ": tool '" + name + "' is not an object");
    ToolPin pin;
    pin.pinned = entry.value("pinned", "");
    pin.pending = entry.value("pending", "");
    pins.emplace(name, std::move(pin));
  }
  return pins;
}

}  // namespace

std::string toolHash(const json& tool) {
  auto member = [&](const char* key) {
    auto it = tool.find(key);
    return it == tool.end() ? json(nullptr) : *it;
  };
  // nlohmann's object keeps keys sorted: dump() is canonical for our purpose.
  const json canonical = {{"name", member("name")},
                          {"description", member("description")},
                          {"inputSchema", member("inputSchema")}};
  const std::string text = canonical.dump(-1, ' ', false, json::error_handler_t::replace);
  return common::toHex(common::sha256(text));
}

std::string_view ToolPin::status() const {
  if (pinned.empty()) return "new";
  return pending.empty() ? "pinned" : "changed";
}

std::expected<std::unique_ptr<PinStore>, std::string> PinStore::open(const std::string& state_dir) {
  std::error_code ec;
  if (!fs::exists(state_dir, ec)) {
    fs::create_directories(fs::path(state_dir).parent_path(), ec);
    if (auto made = ensurePrivateDir(state_dir); !made) return std::unexpected(made.error());
  }
  const fs::path dir = fs::path(state_dir) / "pins";
  if (auto made = ensurePrivateDir(dir); !made) return std::unexpected(made.error());
  return std::unique_ptr<PinStore>(new PinStore(dir.string()));
}

PinStore::PinStore(std::string dir) : dir_(std::move(dir)) {
  watch_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch_ < 0) return;
  constexpr std::uint32_t kEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                    IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF |
                                    IN_MOVE_SELF | IN_ONLYDIR;
  if (::inotify_add_watch(watch_, dir_.c_str(), kEvents) < 0) {
    ::close(watch_);
    watch_ = -1;
  }
}

PinStore::~PinStore() {
  if (watch_ >= 0) ::close(watch_);
}

bool PinStore::directoryChanged() {
  if (watch_ < 0) return true;
  bool changed = false;
  alignas(inotify_event) char events[4096];
  for (;;) {
    const ssize_t n = ::read(watch_, events, sizeof events);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EAGAIN: the queue is empty
    changed = true;     // any event, and IN_Q_OVERFLOW too
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events + at);
      if ((event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0) {
        // The directory itself went or moved: the watch no longer covers the
        // path, so from now on every access stats the file.
        ::close(watch_);
        watch_ = -1;
        return true;
      }
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  return changed;
}

std::string PinStore::pathOf(const std::string& server) const {
  return dir_ + "/" + server + ".json";  // server names are [A-Za-z0-9_.-], never . or ..
}

std::expected<const std::optional<ServerPins>*, std::string> PinStore::current(
    const std::string& server) {
  if (directoryChanged()) {
    for (auto& [name, entry] : cache_) entry.fresh = false;
  }
  Cached& cached = cache_[server];
  if (cached.fresh) return &cached.pins;
  const std::string path = pathOf(server);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return std::unexpected("cannot read " + path + ": " + common::errnoText());
    cached = Cached{};
    cached.fresh = watch_ >= 0;
    return &cached.pins;
  }
  const long long mtime =
      static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
  if (cached.pins && cached.inode == st.st_ino && cached.size == st.st_size &&
      cached.mtime_ns == mtime) {
    cached.fresh = watch_ >= 0;
    return &cached.pins;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected("cannot read " + path + ": " + common::errnoText());
  std::stringstream text;
  text << in.rdbuf();
  auto pins = parsePins(text.str(), path);
  if (!pins) return std::unexpected(pins.error());
  cached = Cached{st.st_ino, st.st_size, mtime, std::move(*pins), watch_ >= 0};
  return &cached.pins;
}

std::expected<void, std::string> PinStore::write(const std::string& server,
                                                 const ServerPins& pins) {
  json doc = {{"server", server}, {"tools", json::object()}};
  for (const auto& [name, pin] : pins) {
    json entry = json::object();
    if (!pin.pinned.empty()) entry["pinned"] = pin.pinned;
    if (!pin.pending.empty()) entry["pending"] = pin.pending;
    doc["tools"][name] = std::move(entry);
  }
  const std::string text = doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  const std::string path = pathOf(server);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    const sandbox::UniqueFd fd(
        ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.get() < 0) return std::unexpected("cannot write " + temp + ": " + common::errnoText());
    std::string_view rest = text;
    while (!rest.empty()) {
      const ssize_t n = ::write(fd.get(), rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string error = common::errnoText();
        ::unlink(temp.c_str());
        return std::unexpected("cannot write " + temp + ": " + error);
      }
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    if (::fsync(fd.get()) != 0) {
      const std::string error = common::errnoText();
      ::unlink(temp.c_str());
      return std::unexpected("cannot write " + temp + ": " + error);
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string error = common::errnoText();
    ::unlink(temp.c_str());
    return std::unexpected("cannot replace " + path + ": " + error);
  }
  cache_.erase(server);  // re-read (and so re-identified) on next use
  return {};
}

std::expected<std::vector<std::string>, std::string> PinStore::check(const std::string& server,
                                                                     const json& tools) {
  std::vector<std::pair<std::string, std::string>> seen;  // name, hash
  for (const json& tool : tools) {
    if (!tool.is_object()) continue;
    auto name = tool.find("name");
    if (name == tool.end() || !name->is_string()) continue;
    seen.emplace_back(name->get<std::string>(), toolHash(tool));
  }
  std::lock_guard lock(mu_);
  auto now = current(server);
  if (!now) return std::unexpected(now.error());
  // Fast path, no write: every tool approved with this very hash.
  if (**now) {
    const ServerPins& pins = ***now;
    bool all = true;
    for (const auto& [name, hash] : seen) {
      auto it = pins.find(name);
      all = all && it != pins.end() && it->second.approved() && it->second.pinned == hash;
    }
    if (all) return std::vector<std::string>{};
  }

  const DirLock dir_lock(dir_);
  now = current(server);  // again under the lock: another process may have written
  if (!now) return std::unexpected(now.error());
  const bool first_sight = !**now;
  ServerPins pins = first_sight ? ServerPins{} : ***now;
  bool changed = first_sight;
  std::vector<std::string> held;
  for (const auto& [name, hash] : seen) {
    if (!pins.contains(name) && pins.size() >= kMaxToolsPerServer) {
      held.push_back(name);  // not recorded, so never approvable: a server flooding names
      continue;
    }
    ToolPin& pin = pins[name];
    if (first_sight) {
      pin.pinned = hash;
      continue;
    }
    if (!pin.pinned.empty() && pin.pinned == hash) {
      if (!pin.pending.empty()) {
        pin.pending.clear();  // back to what was approved
        changed = true;
      }
      continue;
    }
    if (pin.pending != hash) {
      pin.pending = hash;
      changed = true;
    }
    held.push_back(name);
  }
  if (changed) {
    if (auto written = write(server, pins); !written) return std::unexpected(written.error());
  }
  return held;
}

std::expected<bool, std::string> PinStore::callable(const std::string& server,
                                                    std::string_view tool) {
  std::lock_guard lock(mu_);
  auto now = current(server);
  if (!now) return std::unexpected(now.error());
  if (!**now) return true;  // never listed: nothing pinned yet
  // A tool no listing ever showed: its description never reached a client
  // through the gateway, so there is nothing it could have been changed from.
  auto it = (**now)->find(tool);
  return it == (**now)->end() || it->second.approved();
}

std::expected<std::optional<ServerPins>, std::string> PinStore::read(const std::string& server) {
  std::lock_guard lock(mu_);
  auto now = current(server);
  if (!now) return std::unexpected(now.error());
  return **now;
}

std::vector<std::string> PinStore::servers() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json") && name.size() > 5) out.push_back(name.substr(0, name.size() - 5));
  }
  std::ranges::sort(out);
  return out;
}

std::expected<std::vector<std::string>, std::string> PinStore::approve(
    const std::string& server, const std::vector<std::string>& tools) {
  std::lock_guard lock(mu_);
  const DirLock dir_lock(dir_);
  auto now = current(server);
  if (!now) return std::unexpected(now.error());
  if (!**now) return std::unexpected("no pins for server '" + server + "' in " + dir_);
  ServerPins pins = ***now;
  std::vector<std::string> approved;
  for (const std::string& name : tools) {
    auto it = pins.find(name);
    if (it == pins.end()) {
      return std::unexpected("server '" + server + "' has no tool '" + name + "' in its pins");
    }
  }
  for (auto& [name, pin] : pins) {
    if (pin.pending.empty()) continue;
    if (!tools.empty() && std::ranges::find(tools, name) == tools.end()) continue;
    pin.pinned = pin.pending;
    pin.pending.clear();
    approved.push_back(name);
  }
  if (!approved.empty()) {
    if (auto written = write(server, pins); !written) return std::unexpected(written.error());
  }
  return approved;
}

}  // namespace mcpgate::gateway
