#pragma once

// The encrypted secret store: server secrets sealed with AES-256-GCM (OpenSSL
// EVP) under a key that lives apart from the store (a 0600 key file, the
// environment, or a systemd credential). Each value is bound to its name, so
// an entry copied under another name, or any flipped bit, fails to open.

#include <array>
#include <expected>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::secrets {

// Where the key comes from, first match wins: MCPGATE_SECRET_KEY (the key
// itself), the systemd credential $CREDENTIALS_DIRECTORY/mcpgate-secret-key,
// else the key file <state_dir>/secret.key.
inline constexpr const char* kKeyVariable = "MCPGATE_SECRET_KEY";
inline constexpr const char* kCredentialName = "mcpgate-secret-key";

struct Key {
  std::string bytes;   // at least kMinKeyBytes; the AES key is derived from it (HKDF-SHA256)
  std::string source;  // for messages: "MCPGATE_SECRET_KEY", "key file /var/lib/...", ...
  std::string file;    // the key file, when that is the source (rotate-key rewrites it)
};

struct Locations {
  std::string store;     // <state_dir>/secrets.json
  std::string key_file;  // <state_dir>/secret.key
};
[[nodiscard]] Locations locationsFor(const std::string& state_dir);

// The key by the order above; the key file is created only when `create`.
[[nodiscard]] std::expected<Key, std::string> findKey(const Locations& where, bool create);

// [A-Za-z_][A-Za-z0-9_]*, at most 128 characters: secret names are
// environment-variable-like so a config reads ${secret:NAME} plainly.
[[nodiscard]] bool validSecretName(std::string_view name);

inline constexpr std::size_t kMaxSecretBytes = 64 * 1024;

class Store {
 public:
  // Opens the store at `path` with `key`; a missing file is an empty store.
  // A key that does not open the store is an error naming the key's source.
  [[nodiscard]] static std::expected<Store, std::string> open(const std::string& path,
                                                              const Key& key);

  [[nodiscard]] bool exists() const { return exists_; }
  [[nodiscard]] std::vector<std::string> names() const;
  [[nodiscard]] bool contains(const std::string& name) const { return sealed_.contains(name); }
  // The value of `name`, authenticated; an altered entry is an error.
  [[nodiscard]] std::expected<std::string, std::string> get(const std::string& name) const;
  [[nodiscard]] std::expected<void, std::string> set(const std::string& name,
                                                     std::string_view value);
  bool remove(const std::string& name) { return sealed_.erase(name) > 0; }
  // Every value re-sealed under `key` (a new salt too), for rotate-key.
  [[nodiscard]] std::expected<Store, std::string> rekeyed(const Key& key) const;
  // Writes the store (0600, atomically).
  [[nodiscard]] std::expected<void, std::string> save() const;

 private:
  Store() = default;
  std::string path_;
  std::string source_;
  std::string salt_;
  std::array<unsigned char, 32> aes_key_{};
  std::string check_;                          // seals a fixed text: a wrong key fails here
  std::map<std::string, std::string> sealed_;  // name -> nonce | ciphertext | tag
  bool exists_ = false;
};

// Low level, exposed for the tests: AES-256-GCM with a random 96-bit nonce,
// the result is nonce | ciphertext | 16-byte tag; `aad` is authenticated.
[[nodiscard]] std::expected<std::string, std::string> seal(const std::array<unsigned char, 32>& key,
                                                           std::string_view aad,
                                                           std::string_view plain);
[[nodiscard]] std::expected<std::string, std::string> unseal(
    const std::array<unsigned char, 32>& key, std::string_view aad, std::string_view sealed);

}  // namespace mcpgate::secrets
