#pragma once

// The requestState the gateway mints when it turns a legacy server's
// sampling/elicitation/roots request into an InputRequiredResult for a modern
// client (MRTR, basic/patterns/mrtr.mdx). The client must echo it unread; the
// gateway must treat what comes back as attacker-controlled. So it is sealed
// with AES-256-GCM (OpenSSL 3): its plaintext names the client, the server,
// the waiting request (a ticket) and an expiry, and nothing in it can be
// read or changed without the key.
//
// The key is random per gateway process and never leaves memory: the
// request it points at waits inside this process, so a state from another
// process (a restart, another replica) could not be honoured anyway. The
// instance id in the clear (authenticated) part tells that case apart from a
// forgery, so the client is told to send its request again rather than that
// it was tampered with.

#include <array>
#include <chrono>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace mcpgate::gateway::modern {

// A requestState longer than this is refused before anything else is done
// with it (ours are a few hundred bytes; a server's own, passed through, is
// held to the same bound).
inline constexpr std::size_t kMaxRequestStateBytes = 16 * 1024;

// What every state the gateway mints begins with, so that a modern server's
// own requestState (opaque, passed through) is never mistaken for one.
inline constexpr std::string_view kRequestStatePrefix = "mcpgate.1.";
[[nodiscard]] inline bool isGatewayState(std::string_view state) {
  return state.starts_with(kRequestStatePrefix);
}

// What a sealed state binds.
struct StateClaims {
  std::string client;  // who the gateway served (auth name, or the anonymous identity)
  std::string server;  // the server's name in the config
  std::string ticket;  // the waiting request, as the gateway's pool names it
  std::string method;  // the request it answers: a retry must repeat it
  std::chrono::system_clock::time_point expires;
};

struct StateError {
  enum class Kind {
    kTooLarge,     // over kMaxRequestStateBytes
    kMalformed,    // not one of ours at all
    kElsewhere,    // minted by another gateway process (restart, replica)
    kForged,       // ours in form, but it fails authentication
    kExpired,      // past its expiry
    kOtherClient,  // sealed for another client
    kWrongPlace,   // another server, or another method, than it was minted for
  };
  Kind kind;
  std::string message;  // what happened and what the client should do
};

[[nodiscard]] std::string_view stateErrorReason(StateError::Kind kind);

class StateSealer {
 public:
  // A fresh random key and instance id (OpenSSL's RAND_bytes).
  [[nodiscard]] static std::expected<StateSealer, std::string> create();
  // For tests: a given key and instance.
  StateSealer(const std::array<unsigned char, 32>& key, std::uint64_t instance);

  StateSealer(StateSealer&&) noexcept;
  StateSealer& operator=(StateSealer&&) noexcept;
  StateSealer(const StateSealer&) = delete;
  StateSealer& operator=(const StateSealer&) = delete;
  ~StateSealer();

  // The sealed text: base64url, safe in JSON and headers.
  [[nodiscard]] std::expected<std::string, std::string> seal(const StateClaims& claims) const;

  // The claims of a state a client sent back, checked against who sends it
  // now, where, and when.
  [[nodiscard]] std::expected<StateClaims, StateError> open(
      std::string_view sealed, std::string_view client, std::string_view server,
      std::string_view method,
      std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;

 private:
  std::array<unsigned char, 32> key_{};
  std::uint64_t instance_ = 0;
};

}  // namespace mcpgate::gateway::modern
