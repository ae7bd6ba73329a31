#include "config/secret_refs.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "secrets/store.h"

namespace mcpgate::config {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

constexpr char kMark = '\0';

bool hasReference(const Env& env) {
  for (const auto& [key, value] : env) {
    if (value.find(kMark) != std::string::npos) return true;
  }
  return false;
}

// Opened on first use, so a config without references never needs a key.
class LazyStore {
 public:
  explicit LazyStore(const std::string& state_dir) : where_(secrets::locationsFor(state_dir)) {}

  std::expected<std::string, std::string> get(const std::string& name) {
    if (!store_) {
      auto key = secrets::findKey(where_, /*create=*/false);
      if (!key) return std::unexpected(key.error());
      auto opened = secrets::Store::open(where_.store, *key);
      if (!opened) return std::unexpected(opened.error());
      if (!opened->exists()) {
        return std::unexpected("there is no secret store at " + where_.store +
                               " (add secrets with: mcpgate secret set -c CONFIG NAME)");
      }
      store_.emplace(std::move(*opened));
    }
    auto value = store_->get(name);
    if (!value && !store_->contains(name)) {
      return std::unexpected(value.error() + " (add it with: mcpgate secret set -c CONFIG " + name +
                             ")");
    }
    return value;
  }

 private:
  secrets::Locations where_;
  std::optional<secrets::Store> store_;
};

std::expected<void, std::string> resolveEnv(Env& env, const std::string& where, LazyStore& store) {
  for (auto& [key, value] : env) {
    std::string out;
    std::size_t at = 0;
    while (true) {
      const std::size_t open = value.find(kMark, at);
      if (open == std::string::npos) break;
      const std::size_t close = value.find(kMark, open + 1);
      if (close == std::string::npos) break;  // cannot happen: placeholders come in pairs
      out.append(value, at, open - at);
      const std::string name = value.substr(open + 1, close - open - 1);
      auto secret = store.get(name);
      if (!secret) return std::unexpected(where + "." + key + ": " + secret.error());
      out += *secret;
      at = close + 1;
    }
    if (at == 0) continue;
    out.append(value, at);
    value = std::move(out);
  }
  return {};
}

}  // namespace

std::string secretPlaceholder(const std::string& name) {
  return std::string(1, kMark) + name + std::string(1, kMark);
}

std::expected<void, Error> resolveSecretReferences(Config& config) {
  LazyStore store(config.state_dir);
  auto fail = [&](const std::string& message) {
    return std::unexpected(Error{config.source + ": " + message});
  };
  if (hasReference(config.sandbox.env)) {
    if (auto done = resolveEnv(config.sandbox.env, "sandbox.env", store); !done) {
      return fail(done.error());
    }
  }
  for (auto& [name, server] : config.servers) {
    if (hasReference(server.env)) {
      if (auto done = resolveEnv(server.env, "servers." + name + ".env", store); !done) {
        return fail(done.error());
      }
    }
    if (hasReference(server.sandbox.env)) {
      if (auto done = resolveEnv(server.sandbox.env, "servers." + name + ".sandbox.env", store);
          !done) {
        return fail(done.error());
      }
    }
  }
  return {};
}

}  // namespace mcpgate::config
