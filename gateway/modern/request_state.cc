#include "gateway/modern/request_state.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/encoding.h"

namespace mcpgate::gateway::modern {

namespace {

// Layout (then base64url): version | instance (8, big-endian) | nonce (12) |
// ciphertext | tag (16). Version and instance are the AAD: in the clear, but
// authenticated.
constexpr unsigned char kVersion = 1;
constexpr std::size_t kHeader = 1 + 8;
constexpr std::size_t kNonce = 12;
constexpr std::size_t kTag = 16;

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string headerOf(std::uint64_t instance) {
  std::string out(1, static_cast<char>(kVersion));
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((instance >> shift) & 0xffU));
  }
  return out;
}

StateError fail(StateError::Kind kind, std::string message) {
  return StateError{kind, std::move(message)};
}

// AES-256-GCM decryption of `box` (ciphertext | tag); nullopt when it does
// not authenticate.
std::optional<std::string> decrypt(const std::array<unsigned char, 32>& key, std::string_view aad,
                                   std::string_view nonce, std::string_view box) {
  if (box.size() < kTag) return std::nullopt;
  const std::string_view cipher = box.substr(0, box.size() - kTag);
  std::string tag(box.substr(box.size() - kTag));
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return std::nullopt;
  int len = 0;
  std::string plain(cipher.size(), '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonce), nullptr) !=
          1 ||
      EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key.data(), bytes(nonce)) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), out, &len, bytes(cipher), static_cast<int>(cipher.size())) !=
          1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTag), tag.data()) !=
          1) {
    return std::nullopt;
  }
  int tail = 0;
  if (EVP_DecryptFinal_ex(ctx.get(), out + len, &tail) != 1) return std::nullopt;
  return plain;
}

}  // namespace

std::string_view stateErrorReason(StateError::Kind kind) {
  using enum StateError::Kind;
  switch (kind) {
    case kTooLarge: return "request_state_too_large";
    case kMalformed: return "request_state_malformed";
    case kElsewhere: return "request_state_elsewhere";
    case kForged: return "request_state_forged";
    case kExpired: return "request_state_expired";
    case kOtherClient: return "request_state_other_client";
    case kWrongPlace: return "request_state_wrong_place";
  }
  return "request_state";
}

std::expected<StateSealer, std::string> StateSealer::create() {
  std::array<unsigned char, 32> key{};
  std::array<unsigned char, 8> instance{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1 ||
      RAND_bytes(instance.data(), static_cast<int>(instance.size())) != 1) {
    return std::unexpected("OpenSSL's random generator failed; cannot key requestState");
  }
  std::uint64_t id = 0;
  for (unsigned char b : instance) id = (id << 8) | b;
  StateSealer sealer(key, id);
  OPENSSL_cleanse(key.data(), key.size());
  return sealer;
}

StateSealer::StateSealer(const std::array<unsigned char, 32>& key, std::uint64_t instance)
    : key_(key), instance_(instance) {}

StateSealer::StateSealer(StateSealer&& other) noexcept
    : key_(other.key_), instance_(other.instance_) {
  OPENSSL_cleanse(other.key_.data(), other.key_.size());
}

StateSealer& StateSealer::operator=(StateSealer&& other) noexcept {
  if (this != &other) {
    key_ = other.key_;
    instance_ = other.instance_;
    OPENSSL_cleanse(other.key_.data(), other.key_.size());
  }
  return *this;
}

StateSealer::~StateSealer() { OPENSSL_cleanse(key_.data(), key_.size()); }

std::expected<std::string, std::string> StateSealer::seal(const StateClaims& claims) const {
  const auto expires_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              claims.expires.time_since_epoch())
                              .count();
  const std::string plain = nlohmann::json{{"c", claims.client},
                                           {"s", claims.server},
                                           {"t", claims.ticket},
                                           {"m", claims.method},
                                           {"e", expires_ms}}
                                .dump();
  const std::string aad = headerOf(instance_);
  std::string nonce(kNonce, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), static_cast<int>(kNonce)) != 1) {
    return std::unexpected("OpenSSL's random generator failed");
  }
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return std::unexpected("OpenSSL could not make a cipher context");
  std::string cipher(plain.size(), '\0');
  std::string tag(kTag, '\0');
  auto* out = reinterpret_cast<unsigned char*>(cipher.data());
  int len = 0;
  int tail = 0;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonce), nullptr) !=
          1 ||
      EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key_.data(), bytes(nonce)) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out, &len, bytes(plain), static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out + len, &tail) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTag), tag.data()) !=
          1) {
    return std::unexpected("AES-256-GCM sealing failed");
  }
  return std::string(kRequestStatePrefix) + common::encodeBase64Url(aad + nonce + cipher + tag);
}

std::expected<StateClaims, StateError> StateSealer::open(
    std::string_view sealed, std::string_view client, std::string_view server,
    std::string_view method, std::chrono::system_clock::time_point now) const {
  using enum StateError::Kind;
  if (sealed.size() > kMaxRequestStateBytes) {
    return std::unexpected(fail(kTooLarge, "requestState is over " +
                                               std::to_string(kMaxRequestStateBytes) + " bytes"));
  }
  const bool marked = isGatewayState(sealed);
  const std::optional<std::string> raw =
      marked ? common::decodeBase64Url(sealed.substr(kRequestStatePrefix.size())) : std::nullopt;
  if (!raw || raw->size() < kHeader + kNonce + kTag || (*raw)[0] != static_cast<char>(kVersion)) {
    return std::unexpected(fail(
        kMalformed, "requestState was not minted by this gateway; echo the requestState of the "
                    "InputRequiredResult unchanged, or send the request without one"));
  }
  const std::string_view view(*raw);
  const std::string_view aad = view.substr(0, kHeader);
  if (aad != headerOf(instance_)) {
    return std::unexpected(
        fail(kElsewhere, "requestState belongs to a request that does not live on this gateway "
                         "(it restarted, or another replica minted it); send the original "
                         "request again without inputResponses or requestState"));
  }
  auto plain = decrypt(key_, aad, view.substr(kHeader, kNonce), view.substr(kHeader + kNonce));
  if (!plain) {
    return std::unexpected(fail(kForged, "requestState failed authentication (it was changed)"));
  }
  nlohmann::json claims = nlohmann::json::parse(*plain, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object() || !claims["c"].is_string() || !claims["s"].is_string() ||
      !claims["t"].is_string() || !claims["m"].is_string() || !claims["e"].is_number_integer()) {
    return std::unexpected(fail(kForged, "requestState failed authentication"));
  }
  StateClaims out{claims["c"].get<std::string>(), claims["s"].get<std::string>(),
                  claims["t"].get<std::string>(), claims["m"].get<std::string>(),
                  std::chrono::system_clock::time_point(
                      std::chrono::milliseconds(claims["e"].get<std::int64_t>()))};
  if (out.client != client) {
    return std::unexpected(fail(kOtherClient, "requestState was issued to another client"));
  }
  if (now >= out.expires) {
    return std::unexpected(fail(kExpired, "requestState expired; send the original request again "
                                          "without inputResponses or requestState"));
  }
  if (out.server != server || out.method != method) {
    return std::unexpected(fail(kWrongPlace, "requestState was issued for " + out.method +
                                                 " on server '" + out.server + "', not " +
                                                 std::string(method) + " on '" +
                                                 std::string(server) + "'"));
  }
  return out;
}

}  // namespace mcpgate::gateway::modern
