#include "config/auth_section.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/encoding.h"
#include "config/units.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using detail::Entry;
using detail::lineOf;

constexpr std::uint32_t kMaxClientSessions = 1000000;
constexpr std::uint64_t kMaxJwksBytes = 1024 * 1024;

bool isClientName(std::string_view name) {
  if (name == "*") return true;
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '@' || c == ':' || c == '/';
  });
}

bool isHttpUrl(std::string_view url) {
  return (url.starts_with("https://") && url.size() > 8) ||
         (url.starts_with("http://") && url.size() > 7);
}

class AuthLoader : private detail::Reader {
 public:
  explicit AuthLoader(const detail::Reader& reader) : Reader(reader) {}

  [[nodiscard]] std::expected<void, Error> load(const Entry& e, AuthConfig& auth) const {
    if (!e.value.IsMap()) return fail(e.line(), "auth must be a map with tokens, jwt or clients");
    auto items = entries(e.value, "in auth");
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      std::expected<void, Error> done;
      if (item.key == "tokens") {
        done = loadTokens(item, auth);
      } else if (item.key == "jwt") {
        done = loadJwt(item, auth);
      } else if (item.key == "authorization_servers") {
        done = loadUrls(item, auth.authorization_servers);
      } else if (item.key == "public_url") {
        done = loadPublicUrl(item, auth);
      } else if (item.key == "clients") {
        done = loadClients(item, auth);
      } else {
        done = unknownKey(item, "in auth",
                          {"tokens", "jwt", "authorization_servers", "public_url", "clients"});
      }
      if (!done) return done;
    }
    if (!auth.enabled()) {
      return fail(lineOf(e.key_node),
                  "auth has neither tokens nor jwt: nobody could get in (remove the section, "
                  "or add auth.tokens from `mcpgate token new`)");
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadTls(const Entry& e, TlsConfig& tls) const {
    if (!e.value.IsMap()) return fail(e.line(), "tls must be a map with cert_file and key_file");
    auto items = entries(e.value, "in tls");
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      std::string* target = nullptr;
      if (item.key == "cert_file") {
        target = &tls.cert_file;
      } else if (item.key == "key_file") {
        target = &tls.key_file;
      } else {
        return unknownKey(item, "in tls", {"cert_file", "key_file"});
      }
      auto path = readableFile(item, "tls." + item.key);
      if (!path) return std::unexpected(path.error());
      *target = std::move(*path);
    }
    if (tls.cert_file.empty() || tls.key_file.empty()) {
      return fail(e.line(), "tls needs both cert_file and key_file");
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> resolve(int auth_line, Config& config) const {
    AuthConfig& auth = config.auth;
    const bool has_default = auth.clients.contains("*");
    for (const TokenConfig& token : auth.tokens) {
      if (!auth.clients.contains(token.client) && !has_default) {
        return fail(token.line, "auth.tokens: client '" + token.client +
                                    "' is not under auth.clients (and there is no '*' entry), "
                                    "so it could use no server");
      }
    }
    if (auth.enabled() && auth.clients.empty()) {
      return fail(auth_line,
                  "auth.clients is missing: list which servers each client may use (a client not "
                  "listed may use none)");
    }
    for (auto& [name, client] : auth.clients) {
      for (const std::string& server : client.servers) {
        if (server != "*" && !config.servers.contains(server)) {
          return fail(auth_line, "auth.clients." + name + ".servers names '" + server +
                                     "', which is not a configured server");
        }
      }
    }
    return {};
  }

 private:
  [[nodiscard]] std::expected<void, Error> loadTokens(const Entry& e, AuthConfig& auth) const {
    constexpr std::string_view kKind =
        "a list of {client: NAME, sha256: HEX} (see `mcpgate token new`)";
    if (!e.value.IsSequence()) return fail(e.line(), "auth.tokens must be " + std::string(kKind));
    std::set<std::string> seen;
    for (const YAML::Node& node : e.value) {
      const int line = lineOf(node);
      if (!node.IsMap()) return fail(line, "auth.tokens entries must be " + std::string(kKind));
      auto items = entries(node, "in auth.tokens");
      if (!items) return std::unexpected(items.error());
      TokenConfig token;
      token.line = line;
      for (const Entry& item : *items) {
        if (item.key == "client") {
          auto name = scalar(item, "auth.tokens.client", "a client name");
          if (!name) return std::unexpected(name.error());
          if (!isClientName(*name) || *name == "*") {
            return fail(item.line(), "auth.tokens.client '" + *name +
                                         "' must be 1 to 128 of A-Z a-z 0-9 _ . - @ : /");
          }
          token.client = std::move(*name);
        } else if (item.key == "sha256") {
          auto hex = scalar(item, "auth.tokens.sha256", "64 hex digits");
          if (!hex) return std::unexpected(hex.error());
          std::string lower = *hex;
          std::transform(lower.begin(), lower.end(), lower.begin(),
                         [](char c) { return static_cast<char>(std::tolower(c)); });
          if (lower.size() != 64 || lower.find_first_not_of("0123456789abcdef") != lower.npos) {
            return fail(item.line(),
                        "auth.tokens.sha256 must be the 64 hex digits of the token's SHA-256 "
                        "(not the token itself; `mcpgate token new` prints both)");
          }
          if (!seen.insert(lower).second) {
            return fail(item.line(), "auth.tokens: the same sha256 is listed twice");
          }
          token.sha256_hex = std::move(lower);
        } else {
          return unknownKey(item, "in auth.tokens", {"client", "sha256"});
        }
      }
      if (token.client.empty() || token.sha256_hex.empty()) {
        return fail(line, "auth.tokens entries need both client and sha256");
      }
      auth.tokens.push_back(std::move(token));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadUrls(const Entry& e,
                                                    std::vector<std::string>& out) const {
    const std::string path = "auth." + e.key;
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be a list of URLs");
    for (const YAML::Node& node : e.value) {
      auto url = scalar(node, lineOf(node), path, "a list of URLs");
      if (!url) return std::unexpected(url.error());
      if (!isHttpUrl(*url)) {
        return fail(lineOf(node), path + " entry '" + *url + "' must be an http(s) URL");
      }
      out.push_back(std::move(*url));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadPublicUrl(const Entry& e, AuthConfig& auth) const {
    auto url = scalar(e, "auth.public_url", "a URL such as https://gw.example.com");
    if (!url) return std::unexpected(url.error());
    while (url->ends_with('/')) url->pop_back();
    const auto scheme_end = url->find("://");
    if (!isHttpUrl(*url) || url->find('/', scheme_end + 3) != std::string::npos ||
        url->find_first_of("?# \"") != std::string::npos) {
      return fail(e.line(), "auth.public_url '" + *url +
                                "' must be SCHEME://HOST[:PORT] (http or https, no path)");
    }
    auth.public_url = std::move(*url);
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadJwt(const Entry& e, AuthConfig& auth) const {
    if (!e.value.IsMap()) {
      return fail(e.line(), "auth.jwt must be a map with jwks_file, issuer and audience");
    }
    auto items = entries(e.value, "in auth.jwt");
    if (!items) return std::unexpected(items.error());
    JwtConfig jwt;
    for (const Entry& item : *items) {
      const std::string path = "auth.jwt." + item.key;
      if (item.key == "jwks_file") {
        auto file = readableFile(item, path);
        if (!file) return std::unexpected(file.error());
        jwt.jwks_file = *file;
        auto text = readJwks(item, *file);
        if (!text) return std::unexpected(text.error());
        jwt.jwks = std::move(*text);
      } else if (item.key == "issuer" || item.key == "client_claim") {
        auto value = scalar(item, path, "a string");
        if (!value) return std::unexpected(value.error());
        if (value->empty()) return fail(item.line(), path + " must not be empty");
        (item.key == "issuer" ? jwt.issuer : jwt.client_claim) = std::move(*value);
      } else if (item.key == "audience") {
        if (item.value.IsSequence()) {
          for (const YAML::Node& node : item.value) {
            auto value = scalar(node, lineOf(node), path, "a string or a list of strings");
            if (!value) return std::unexpected(value.error());
            jwt.audiences.push_back(std::move(*value));
          }
        } else {
          auto value = scalar(item, path, "a string or a list of strings");
          if (!value) return std::unexpected(value.error());
          jwt.audiences.push_back(std::move(*value));
        }
        if (jwt.audiences.empty() ||
            std::ranges::any_of(jwt.audiences, [](const auto& a) { return a.empty(); })) {
          return fail(item.line(), path + " must name at least one audience");
        }
      } else if (item.key == "leeway") {
        auto text = scalar(item, path, "a duration such as 60s");
        if (!text) return std::unexpected(text.error());
        auto value = parseDuration(*text);
        if (!value) return fail(item.line(), path + " '" + *text + "' " + value.error());
        if (*value > std::chrono::minutes(10)) {
          return fail(item.line(), path + " must be at most 10m (it extends every token's life)");
        }
        jwt.leeway = std::chrono::duration_cast<std::chrono::seconds>(*value);
      } else {
        return unknownKey(item, "in auth.jwt",
                          {"jwks_file", "issuer", "audience", "client_claim", "leeway"});
      }
    }
    for (const auto& [value, key] :
         {std::pair{!jwt.jwks_file.empty(), "jwks_file"}, std::pair{!jwt.issuer.empty(), "issuer"},
          std::pair{!jwt.audiences.empty(), "audience"}}) {
      if (!value)
        return fail(e.line(), std::string("auth.jwt: missing required key '") + key + "'");
    }
    auth.jwt = std::move(jwt);
    return {};
  }

  // The JWKS must parse, and hold at least one key the gateway can use: RSA
  // (n, e) or EC P-256 (x, y). The keys themselves are built in gateway/auth.cc.
  [[nodiscard]] std::expected<std::string, Error> readJwks(const Entry& e,
                                                           const std::string& file) const {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    if (text.size() > kMaxJwksBytes) return fail(e.line(), "auth.jwt.jwks_file is over 1 MiB");
    const std::string where = "auth.jwt.jwks_file '" + file + "'";
    const nlohmann::json jwks = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (jwks.is_discarded()) return fail(e.line(), where + " is not valid JSON");
    if (!jwks.is_object() || !jwks.contains("keys") || !jwks["keys"].is_array()) {
      return fail(e.line(), where + " must be a JWK Set: an object with a \"keys\" array");
    }
    std::size_t usable = 0;
    std::size_t index = 0;
    for (const auto& key : jwks["keys"]) {
      const std::string at = where + " key " + std::to_string(index++);
      if (!key.is_object() || !key.contains("kty") || !key["kty"].is_string()) {
        return fail(e.line(), at + " has no \"kty\"");
      }
      const auto member = [&](const char* name) -> std::optional<std::string> {
        if (!key.contains(name) || !key[name].is_string()) return std::nullopt;
        return common::decodeBase64Url(key[name].get<std::string>());
      };
      const std::string kty = key["kty"];
      if (key.contains("use") && key["use"] != "sig") continue;  // an encryption key
      if (kty == "RSA") {
        auto n = member("n");
        auto exponent = member("e");
        if (!n || !exponent || n->size() < 256) {
          return fail(e.line(), at + ": an RSA key needs base64url \"n\" (2048 bits or more) "
                                     "and \"e\"");
        }
        ++usable;
      } else if (kty == "EC") {
        if (!key.contains("crv") || key["crv"] != "P-256") continue;  // only ES256 is supported
        auto x = member("x");
        auto y = member("y");
        if (!x || !y || x->size() != 32 || y->size() != 32) {
          return fail(e.line(), at + ": a P-256 key needs base64url \"x\" and \"y\" of 32 bytes");
        }
        ++usable;
      }
    }
    if (usable == 0) {
      return fail(e.line(), where +
                                " holds no RSA or EC P-256 signing key (RS256 and ES256 are "
                                "the algorithms accepted)");
    }
    return text;
  }

  [[nodiscard]] std::expected<void, Error> loadClients(const Entry& e, AuthConfig& auth) const {
    if (!e.value.IsMap()) return fail(e.line(), "auth.clients must be a map from client names");
    auto items = entries(e.value, "in auth.clients");
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      const std::string path = "auth.clients." + item.key;
      if (!isClientName(item.key)) {
        return fail(lineOf(item.key_node), "client name '" + item.key +
                                               "' must be '*' or 1 to 128 of A-Z a-z 0-9 _ . - @ "
                                               ": /");
      }
      if (!item.value.IsMap()) return fail(item.line(), path + " must be a map with servers");
      auto settings = entries(item.value, "in " + path);
      if (!settings) return std::unexpected(settings.error());
      ClientConfig client;
      client.name = item.key;
      bool has_servers = false;
      for (const Entry& s : *settings) {
        std::expected<void, Error> done;
        if (s.key == "servers") {
          has_servers = true;
          done = loadClientServers(s, path + ".servers", client);
        } else if (s.key == "max_sessions") {
          auto value = integerInRange(s, path + ".max_sessions", 1, kMaxClientSessions,
                                      "an integer from 1 to " + std::to_string(kMaxClientSessions));
          if (!value) return std::unexpected(value.error());
          client.max_sessions = static_cast<std::uint32_t>(*value);
        } else if (s.key == "rate") {
          done = loadRate(s, path + ".rate", client);
        } else {
          done = unknownKey(s, "in " + path, {"servers", "max_sessions", "rate"});
        }
        if (!done) return done;
      }
      if (!has_servers) {
        return fail(lineOf(item.key_node),
                    path + ": missing required key 'servers' (a list of server names, or [\"*\"])");
      }
      auth.clients.emplace(item.key, std::move(client));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadClientServers(const Entry& e,
                                                             const std::string& path,
                                                             ClientConfig& client) const {
    if (!e.value.IsSequence()) return fail(e.line(), path + " must be a list of server names");
    for (const YAML::Node& node : e.value) {
      auto name = scalar(node, lineOf(node), path, "a list of server names");
      if (!name) return std::unexpected(name.error());
      client.servers.push_back(std::move(*name));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadRate(const Entry& e, const std::string& path,
                                                    ClientConfig& client) const {
    if (!e.value.IsMap()) {
      return fail(e.line(), path + " must be a map such as {per_second: 20, burst: 40}");
    }
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (item.key == "per_second") {
        auto text = scalar(item, path + ".per_second", "a positive number");
        if (!text) return std::unexpected(text.error());
        char* end = nullptr;
        const double value = std::strtod(text->c_str(), &end);
        if (text->empty() || end != text->c_str() + text->size() || !std::isfinite(value) ||
            value <= 0 || value > 1e6) {
          return fail(item.line(), path + ".per_second '" + *text +
                                       "' must be a number greater than 0 (at most 1000000)");
        }
        client.rate_per_second = value;
      } else if (item.key == "burst") {
        auto value =
            integerInRange(item, path + ".burst", 1, 1000000, "an integer from 1 to 1000000");
        if (!value) return std::unexpected(value.error());
        client.rate_burst = static_cast<std::uint32_t>(*value);
      } else {
        return unknownKey(item, "in " + path, {"per_second", "burst"});
      }
    }
    if (client.rate_per_second <= 0) return fail(e.line(), path + ": missing 'per_second'");
    if (client.rate_burst == 0) {
      client.rate_burst =
          static_cast<std::uint32_t>(std::max(1.0, std::ceil(client.rate_per_second)));
    }
    return {};
  }
};

}  // namespace

std::expected<void, Error> loadAuthSection(const detail::Reader& reader, const Entry& e,
                                           AuthConfig& auth) {
  return AuthLoader(reader).load(e, auth);
}

std::expected<void, Error> loadTlsSection(const detail::Reader& reader, const Entry& e,
                                          TlsConfig& tls) {
  return AuthLoader(reader).loadTls(e, tls);
}

std::expected<void, Error> resolveAuthSection(const detail::Reader& reader, int auth_line,
                                              Config& config) {
  return AuthLoader(reader).resolve(auth_line, config);
}

void emitAuthSection(YAML::Emitter& out, const AuthConfig& auth) {
  out << YAML::BeginMap;
  out << YAML::Key << "tokens" << YAML::Value << YAML::BeginSeq;
  for (const TokenConfig& token : auth.tokens) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "client" << YAML::Value << token.client
        << YAML::Key << "sha256" << YAML::Value << token.sha256_hex << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (auth.jwt) {
    out << YAML::Key << "jwt" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "jwks_file" << YAML::Value << auth.jwt->jwks_file;
    out << YAML::Key << "issuer" << YAML::Value << auth.jwt->issuer;
    out << YAML::Key << "audience" << YAML::Value << YAML::Flow << auth.jwt->audiences;
    out << YAML::Key << "client_claim" << YAML::Value << auth.jwt->client_claim;
    out << YAML::Key << "leeway" << YAML::Value << formatDuration(auth.jwt->leeway);
    out << YAML::EndMap;
  }
  out << YAML::Key << "authorization_servers" << YAML::Value << YAML::Flow
      << auth.authorization_servers;
  if (!auth.public_url.empty()) out << YAML::Key << "public_url" << YAML::Value << auth.public_url;
  out << YAML::Key << "clients" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, client] : auth.clients) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "servers" << YAML::Value << YAML::Flow << client.servers;
    if (client.max_sessions > 0) {
      out << YAML::Key << "max_sessions" << YAML::Value << client.max_sessions;
    }
    if (client.rate_per_second > 0) {
      out << YAML::Key << "rate" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
          << "per_second" << YAML::Value << client.rate_per_second << YAML::Key << "burst"
          << YAML::Value << client.rate_burst << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

void emitTlsSection(YAML::Emitter& out, const TlsConfig& tls) {
  out << YAML::BeginMap << YAML::Key << "cert_file" << YAML::Value << tls.cert_file << YAML::Key
      << "key_file" << YAML::Value << tls.key_file << YAML::EndMap;
}

const ClientConfig* findClient(const AuthConfig& auth, std::string_view client) {
  auto it = auth.clients.find(std::string(client));
  if (it == auth.clients.end()) it = auth.clients.find("*");
  return it == auth.clients.end() ? nullptr : &it->second;
}

}  // namespace mcpgate::config
