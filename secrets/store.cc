#include "secrets/store.h"

#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <system_error>

#include "common/encoding.h"
#include "common/errno_text.h"
#include "secrets/key_file.h"

namespace mcpgate::secrets {
namespace {

using nlohmann::json;
using AesKey = std::array<unsigned char, 32>;

constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
constexpr std::size_t kSaltBytes = 16;
constexpr std::size_t kMaxStoreBytes = 16 * 1024 * 1024;
constexpr std::string_view kFormat = "mcpgate-secrets-1";
constexpr std::string_view kCheckText = "mcpgate secret store";
constexpr std::string_view kCheckAad = "mcpgate-secrets-1 check";

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
struct KdfFree {
  void operator()(EVP_KDF* k) const { EVP_KDF_free(k); }
};
struct KdfCtxFree {
  void operator()(EVP_KDF_CTX* k) const { EVP_KDF_CTX_free(k); }
};

std::string entryAad(const std::string& name) { return "mcpgate-secrets-1 secret " + name; }

// HKDF-SHA256 from the key text and the store's salt: any key of 32 or more
// bytes (hex from a key file, a passphrase-like credential) gives 256 bits.
std::expected<AesKey, std::string> deriveKey(const std::string& key, const std::string& salt) {
  std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr));
  if (!kdf) return std::unexpected(std::string("OpenSSL has no HKDF"));
  std::unique_ptr<EVP_KDF_CTX, KdfCtxFree> ctx(EVP_KDF_CTX_new(kdf.get()));
  if (!ctx) return std::unexpected(std::string("out of memory (HKDF)"));
  char digest[] = "SHA256";
  std::string info = "mcpgate secret store AES-256-GCM";
  std::string ikm = key;
  std::string s = salt;
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, ikm.data(), ikm.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, s.data(), s.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
      OSSL_PARAM_construct_end()};
  AesKey out{};
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) {
    return std::unexpected(std::string("HKDF-SHA256 failed"));
  }
  return out;
}

std::expected<std::string, std::string> readSmallFile(const std::string& path, bool& missing) {
  missing = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      missing = true;
      return std::string();
    }
    return std::unexpected("cannot read " + path + ": " + common::errnoText(errno));
  }
  std::string text;
  char buffer[16384];
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() <= kMaxStoreBytes) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  const int error = errno;
  ::close(fd);
  if (n < 0) return std::unexpected("cannot read " + path + ": " + common::errnoText(error));
  if (text.size() > kMaxStoreBytes)
    return std::unexpected(path + " is too large for a secret store");
  return text;
}

}  // namespace

std::expected<std::string, std::string> seal(const AesKey& key, std::string_view aad,
                                             std::string_view plain) {
  std::string out(kNonceBytes + plain.size() + kTagBytes, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(out.data());
  if (RAND_bytes(bytes, static_cast<int>(kNonceBytes)) != 1) {
    return std::unexpected(std::string("the CSPRNG (OpenSSL RAND_bytes) failed"));
  }
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
  int len = 0;
  const bool ok =
      ctx && EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), bytes) == 1 &&
      EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                        reinterpret_cast<const unsigned char*>(aad.data()),
                        static_cast<int>(aad.size())) == 1 &&
      EVP_EncryptUpdate(ctx.get(), bytes + kNonceBytes, &len,
                        reinterpret_cast<const unsigned char*>(plain.data()),
                        static_cast<int>(plain.size())) == 1 &&
      EVP_EncryptFinal_ex(ctx.get(), bytes + kNonceBytes + len, &len) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          bytes + kNonceBytes + plain.size()) == 1;
  if (!ok) return std::unexpected(std::string("AES-256-GCM encryption failed"));
  return out;
}

std::expected<std::string, std::string> unseal(const AesKey& key, std::string_view aad,
                                               std::string_view sealed) {
  if (sealed.size() < kNonceBytes + kTagBytes) return std::unexpected(std::string("truncated"));
  const std::size_t n = sealed.size() - kNonceBytes - kTagBytes;
  const auto* in = reinterpret_cast<const unsigned char*>(sealed.data());
  std::string plain(n, '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  std::array<unsigned char, kTagBytes> tag{};
  std::copy_n(in + kNonceBytes + n, kTagBytes, tag.begin());
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
  int len = 0;
  const bool ok =
      ctx && EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), in) == 1 &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &len,
                        reinterpret_cast<const unsigned char*>(aad.data()),
                        static_cast<int>(aad.size())) == 1 &&
      EVP_DecryptUpdate(ctx.get(), out, &len, in + kNonceBytes, static_cast<int>(n)) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                          tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), out + len, &len) == 1;
  if (!ok) {
    OPENSSL_cleanse(plain.data(), plain.size());
    return std::unexpected(std::string("authentication failed"));
  }
  return plain;
}

Locations locationsFor(const std::string& state_dir) {
  return Locations{state_dir + "/secrets.json", state_dir + "/secret.key"};
}

std::expected<Key, std::string> findKey(const Locations& where, bool create) {
  if (const char* value = std::getenv(kKeyVariable); value != nullptr) {
    Key key{value, kKeyVariable, ""};
    if (key.bytes.size() < kMinKeyBytes) {
      return std::unexpected(std::string(kKeyVariable) + " must hold at least " +
                             std::to_string(kMinKeyBytes) + " bytes");
    }
    return key;
  }
  if (const char* dir = std::getenv("CREDENTIALS_DIRECTORY"); dir != nullptr && *dir != '\0') {
    const std::string path = std::string(dir) + "/" + kCredentialName;
    if (::access(path.c_str(), F_OK) == 0) {
      // systemd owns the credential's file and mode; only its content is checked.
      bool missing = false;
      auto text = readSmallFile(path, missing);
      if (!text) return std::unexpected(text.error());
      while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
      if (text->size() < kMinKeyBytes) {
        return std::unexpected("the systemd credential " + path + " must hold at least " +
                               std::to_string(kMinKeyBytes) + " bytes");
      }
      return Key{std::move(*text), "systemd credential " + path, ""};
    }
  }
  auto text = loadKeyFile(where.key_file, "secret key", create);
  if (!text) return std::unexpected(text.error());
  return Key{std::move(*text), "key file " + where.key_file, where.key_file};
}

bool validSecretName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  auto start = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!start(name.front())) return false;
  for (char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::expected<Store, std::string> Store::open(const std::string& path, const Key& key) {
  Store store;
  store.path_ = path;
  store.source_ = key.source;
  bool missing = false;
  auto text = readSmallFile(path, missing);
  if (!text) return std::unexpected(text.error());
  if (missing) {
    store.salt_.resize(kSaltBytes);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(store.salt_.data()),
                   static_cast<int>(kSaltBytes)) != 1) {
      return std::unexpected(std::string("the CSPRNG (OpenSSL RAND_bytes) failed"));
    }
    auto derived = deriveKey(key.bytes, store.salt_);
    if (!derived) return std::unexpected(derived.error());
    store.aes_key_ = *derived;
    auto check = seal(store.aes_key_, kCheckAad, kCheckText);
    if (!check) return std::unexpected(check.error());
    store.check_ = std::move(*check);
    return store;
  }
  store.exists_ = true;
  const std::string broken = "the secret store " + path + " is damaged: ";
  const json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("format", "") != kFormat) {
    return std::unexpected(broken + "not a " + std::string(kFormat) + " file");
  }
  auto hexField = [&](const json& object, const char* field) -> std::optional<std::string> {
    if (!object.contains(field) || !object[field].is_string()) return std::nullopt;
    return common::fromHex(object[field].get<std::string>());
  };
  auto salt = hexField(doc, "salt");
  auto check = hexField(doc, "check");
  if (!salt || salt->size() != kSaltBytes || !check) {
    return std::unexpected(broken + "its salt or key check is missing");
  }
  store.salt_ = std::move(*salt);
  store.check_ = std::move(*check);
  auto derived = deriveKey(key.bytes, store.salt_);
  if (!derived) return std::unexpected(derived.error());
  store.aes_key_ = *derived;
  auto opened = unseal(store.aes_key_, kCheckAad, store.check_);
  if (!opened || *opened != kCheckText) {
    return std::unexpected("the secret key from the " + key.source +
                           " does not open the secret store " + path +
                           " (a different key sealed it, or the file was altered)");
  }
  if (!doc.contains("secrets") || !doc["secrets"].is_object()) {
    return std::unexpected(broken + "no secrets map");
  }
  for (const auto& [name, value] : doc["secrets"].items()) {
    auto sealed = value.is_string() ? common::fromHex(value.get<std::string>()) : std::nullopt;
    if (!validSecretName(name) || !sealed) {
      return std::unexpected(broken + "entry '" + name + "' is malformed");
    }
    store.sealed_.emplace(name, std::move(*sealed));
  }
  return store;
}

std::vector<std::string> Store::names() const {
  std::vector<std::string> out;
  for (const auto& [name, sealed] : sealed_) out.push_back(name);
  return out;
}

std::expected<std::string, std::string> Store::get(const std::string& name) const {
  const auto it = sealed_.find(name);
  if (it == sealed_.end()) {
    return std::unexpected("secret '" + name + "' is not in the secret store " + path_);
  }
  auto plain = unseal(aes_key_, entryAad(name), it->second);
  if (!plain) {
    return std::unexpected("secret '" + name + "' in " + path_ +
                           " fails authentication: the entry was altered or moved");
  }
  return plain;
}

std::expected<void, std::string> Store::set(const std::string& name, std::string_view value) {
  if (!validSecretName(name)) {
    return std::unexpected("invalid secret name '" + name +
                           "' (use letters, digits and _, not starting with a digit)");
  }
  if (value.size() > kMaxSecretBytes) {
    return std::unexpected("a secret value may hold at most " + std::to_string(kMaxSecretBytes) +
                           " bytes");
  }
  if (value.find('\0') != std::string_view::npos) {
    return std::unexpected(
        std::string("a secret value cannot hold a NUL byte (it becomes an "
                    "environment variable)"));
  }
  auto sealed = seal(aes_key_, entryAad(name), value);
  if (!sealed) return std::unexpected(sealed.error());
  sealed_[name] = std::move(*sealed);
  return {};
}

std::expected<Store, std::string> Store::rekeyed(const Key& key) const {
  Store fresh;
  fresh.path_ = path_;
  fresh.source_ = key.source;
  fresh.salt_.resize(kSaltBytes);
  if (RAND_bytes(reinterpret_cast<unsigned char*>(fresh.salt_.data()),
                 static_cast<int>(kSaltBytes)) != 1) {
    return std::unexpected(std::string("the CSPRNG (OpenSSL RAND_bytes) failed"));
  }
  auto derived = deriveKey(key.bytes, fresh.salt_);
  if (!derived) return std::unexpected(derived.error());
  fresh.aes_key_ = *derived;
  auto check = seal(fresh.aes_key_, kCheckAad, kCheckText);
  if (!check) return std::unexpected(check.error());
  fresh.check_ = std::move(*check);
  fresh.exists_ = exists_;
  for (const auto& [name, sealed] : sealed_) {
    auto value = get(name);
    if (!value) return std::unexpected(value.error());
    auto set_ok = fresh.set(name, *value);
    OPENSSL_cleanse(value->data(), value->size());
    if (!set_ok) return std::unexpected(set_ok.error());
  }
  return fresh;
}

std::expected<void, std::string> Store::save() const {
  json secrets = json::object();
  for (const auto& [name, sealed] : sealed_) secrets[name] = common::toHex(sealed);
  json doc = {{"format", kFormat},
              {"cipher", "AES-256-GCM, key HKDF-SHA256(key, salt)"},
              {"salt", common::toHex(salt_)},
              {"check", common::toHex(check_)},
              {"secrets", std::move(secrets)}};
  return replacePrivateFile(path_, doc.dump(2) + "\n");
}

}  // namespace mcpgate::secrets
