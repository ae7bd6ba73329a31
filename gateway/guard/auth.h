#pragma once

// Who is calling: bearer tokens (SHA-256 in the config) and JWTs (RS256,
// ES256 against a JWKS file), the servers each client may use, and its
// request rate. Built from a const Config, so a reload builds a fresh one.
// No Beast here: it is slow to compile.

#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace mcpgate::gateway::auth {

struct Identity {
  std::string client;
};

struct AuthError {
  enum class Kind { kMissing, kInvalid, kExpired };
  Kind kind;
  // Says what is wrong without any part of the token: safe for the client
  // (error_description) and the log.
  std::string description;
};

class Authenticator {
 public:
  // Fails when a JWKS key cannot be built (the config loader checked its shape).
  [[nodiscard]] static std::expected<std::shared_ptr<const Authenticator>, std::string> create(
      const config::Config& config);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;

  // `authorization` is the Authorization header's value, empty when absent.
  [[nodiscard]] std::expected<Identity, AuthError> authenticate(
      std::string_view authorization,
      std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;

  // Whether `client` may use `server`: its own entry under auth.clients, else
  // the "*" entry, else no server at all.
  [[nodiscard]] bool mayUse(std::string_view client, std::string_view server) const;

 private:
  struct Key;
  explicit Authenticator(const config::Config& config);
  [[nodiscard]] std::expected<Identity, AuthError> verifyJwt(
      std::string_view token, std::chrono::system_clock::time_point now) const;

  config::AuthConfig auth_;
  std::vector<std::string> token_hashes_;  // raw 32-byte SHA-256, parallel to auth_.tokens
  std::vector<std::unique_ptr<Key>> keys_;
};

// Per-client token buckets (auth.clients.NAME.rate). Thread-safe.
class RateLimiter {
 public:
  explicit RateLimiter(const config::Config& config);
  // nullopt when the request may go ahead; else how long until it would.
  [[nodiscard]] std::optional<std::chrono::seconds> acquire(
      const std::string& client,
      std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now());

 private:
  struct Bucket {
    double tokens;
    std::chrono::steady_clock::time_point last;
  };
  config::AuthConfig auth_;
  std::mutex mu_;
  std::map<std::string, Bucket, std::less<>> buckets_;
  // Full buckets (the same as none) are forgotten when the map reaches this size.
  static constexpr std::size_t kMinPruneAt = 10000;
  std::size_t prune_at_ = kMinPruneAt;
};

// A new bearer token: "mcpg_" and 32 bytes from OpenSSL's CSPRNG in base64url.
[[nodiscard]] std::string newToken();

}  // namespace mcpgate::gateway::auth
