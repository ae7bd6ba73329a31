#pragma once

// Tool pinning (rug-pull detection): the hash of each tool definition a
// server has shown, kept in <state_dir>/pins/<server>.json.
//
// The first tools/list of a server (no file yet) is trusted and pinned whole.
// After that, a tool whose definition hashes differently, or a tool never
// seen before, is recorded as pending until an operator approves it with
// `mcpgate pins approve`; until then the gateway hides it (or only warns,
// per the config). A tool that disappears keeps its pin: if it comes back
// unchanged it is trusted again, if changed it is pending like any change.
//
// One store per process, shared by all sessions behind a mutex. Each access
// sees the file as it is on disk, so an approval takes effect without a
// restart: an inotify watch on the directory says when anything in it
// changed (then the file is stat'ed, and re-read if it is another), so the
// common access costs one read of an empty inotify queue instead of a path
// lookup. Without inotify (no instance left) every access stats the file.
// Writes go to a temporary file renamed over the old one (0600, directory
// 0700), under an flock on the directory so the gateway and the CLI do not
// lose each other's updates.

#include <sys/types.h>

#include <expected>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::gateway {

// SHA-256 (hex) of the canonical JSON of {name, description, inputSchema}:
// object keys sorted, no whitespace. Members the tool lacks count as null.
[[nodiscard]] std::string toolHash(const nlohmann::json& tool);

struct ToolPin {
  std::string pinned;   // approved hash; empty for a tool that was never approved
  std::string pending;  // hash seen since and not approved; empty when none
  [[nodiscard]] bool approved() const { return !pinned.empty() && pending.empty(); }
  // "pinned", "changed" or "new".
  [[nodiscard]] std::string_view status() const;
};

using ServerPins = std::map<std::string, ToolPin, std::less<>>;

class PinStore {
 public:
  // `dir` is <state_dir>/pins. Creates it (and state_dir) with mode 0700 if
  // missing; refuses a directory others can write to.
  [[nodiscard]] static std::expected<std::unique_ptr<PinStore>, std::string> open(
      const std::string& state_dir);
  PinStore(const PinStore&) = delete;
  PinStore& operator=(const PinStore&) = delete;
  ~PinStore();

  // A tools/list result's `tools` of `server`: records what is new or changed
  // and returns the names of the tools that are not approved.
  [[nodiscard]] std::expected<std::vector<std::string>, std::string> check(
      const std::string& server, const nlohmann::json& tools);

  // Whether a tools/call to `tool` may go through: no for a tool held as new
  // or changed; yes for an approved tool and for one no listing ever showed
  // (clients call tools they listed in an earlier session, and servers list
  // some tools only to clients with certain capabilities).
  [[nodiscard]] std::expected<bool, std::string> callable(const std::string& server,
                                                          std::string_view tool);

  // For the CLI: the pins of a server (nullopt if it has none yet), the
  // servers with pins, and approval of pending hashes (all of the server's
  // when `tools` is empty); returns the names approved.
  [[nodiscard]] std::expected<std::optional<ServerPins>, std::string> read(
      const std::string& server);
  [[nodiscard]] std::vector<std::string> servers() const;
  [[nodiscard]] std::expected<std::vector<std::string>, std::string> approve(
      const std::string& server, const std::vector<std::string>& tools);

  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  explicit PinStore(std::string dir);

  struct Cached {
    // Identity of the file the pins were read from; a change means re-read.
    ino_t inode = 0;
    off_t size = -1;
    long long mtime_ns = -1;
    std::optional<ServerPins> pins;
    // Nothing in the directory changed since the file was last checked.
    bool fresh = false;
  };
  [[nodiscard]] std::string pathOf(const std::string& server) const;
  // Current pins of `server` (from the cache if the file did not change). mu_ held.
  [[nodiscard]] std::expected<const std::optional<ServerPins>*, std::string> current(
      const std::string& server);
  [[nodiscard]] std::expected<void, std::string> write(const std::string& server,
                                                       const ServerPins& pins);

  // Drains the watch; true if anything in the directory may have changed
  // since the last call (always, without a watch). mu_ held.
  [[nodiscard]] bool directoryChanged();

  std::string dir_;
  int watch_ = -1;  // inotify instance watching dir_, or -1
  std::mutex mu_;
  std::map<std::string, Cached, std::less<>> cache_;
};

}  // namespace mcpgate::gateway
