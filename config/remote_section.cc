#include "config/remote_section.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "common/loopback.h"
#include "config/expand.h"
#include "config/units.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using detail::Entry;
using detail::lineOf;

// Headers the gateway sets itself on every request: a configured value would
// break the framing, the MCP session, or a modern request's metadata.
constexpr std::array<std::string_view, 11> kReservedHeaders = {
    "host",          "content-type", "content-length",       "transfer-encoding",
    "connection",    "accept",       "mcp-session-id",       "mcp-protocol-version",
    "last-event-id", "mcp-method",   "mcp-name"};

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool isTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// scheme://host[:port][/path][?query]; the error is a phrase after the url.
std::expected<void, std::string> parseUrl(std::string_view url, RemoteConfig& remote) {
  if (std::any_of(url.begin(), url.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; })) {
    return std::unexpected("contains a space or control character");
  }
  std::string_view rest;
  if (url.size() > 8 && equalsIgnoreCase(url.substr(0, 8), "https://")) {
    remote.tls = true;
    remote.port = 443;
    rest = url.substr(8);
  } else if (url.size() > 7 && equalsIgnoreCase(url.substr(0, 7), "http://")) {
    remote.tls = false;
    remote.port = 80;
    rest = url.substr(7);
  } else {
    return std::unexpected("must start with https:// (or http:// for a server on this host)");
  }
  const std::size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view target = end == std::string_view::npos ? "" : rest.substr(end);
  if (target.find('#') != std::string_view::npos) {
    return std::unexpected("has a #fragment, which means nothing to a server");
  }
  if (authority.find('@') != std::string_view::npos) {
    return std::unexpected("has user:password@ in it: put credentials in 'headers'");
  }
  std::string_view port_text;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::unexpected("has an unclosed [ in its host");
    remote.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return std::unexpected("has junk after ]");
    if (!after.empty()) port_text = after.substr(1);
    unsigned char bytes[16];
    if (::inet_pton(AF_INET6, remote.host.c_str(), bytes) != 1) {
      return std::unexpected("has '" + remote.host + "' in brackets, which is not an IPv6 address");
    }
  } else {
    const std::size_t colon = authority.find(':');
    remote.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    if (colon != std::string_view::npos && port_text.empty())
      return std::unexpected("has no port after ':'");
  }
  if (remote.host.empty()) return std::unexpected("has no host");
  if (!port_text.empty() || authority.ends_with(':')) {
    unsigned port = 0;
    if (port_text.empty() || port_text.size() > 5 ||
        !std::all_of(port_text.begin(), port_text.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
      return std::unexpected("has a port that is not a number from 1 to 65535");
    }
    for (char c : port_text) port = port * 10 + static_cast<unsigned>(c - '0');
    if (port == 0 || port > 65535) return std::unexpected("has a port outside 1 to 65535");
    remote.port = static_cast<std::uint16_t>(port);
  }
  remote.target = target.empty()            ? "/"
                  : target.starts_with('?') ? "/" + std::string(target)
                                            : std::string(target);
  return {};
}

class RemoteLoader : private detail::Reader {
 public:
  explicit RemoteLoader(const detail::Reader& reader) : Reader(reader) {}

  [[nodiscard]] std::expected<void, Error> load(const Entry& e, const std::string& path,
                                                RemoteDraft& draft) const {
    const std::string item_path = path + "." + e.key;
    if (draft.first_line == 0 && e.key != "type" && e.key != "transportType") {
      draft.first_line = lineOf(e.key_node);
      draft.first_key = e.key;
    }
    if (e.key == "url" || e.key == "serverUrl") {
      if (draft.url_line != 0) {
        return fail(lineOf(e.key_node), item_path + ": the url is already given on line " +
                                            std::to_string(draft.url_line));
      }
      auto url = scalar(e, item_path, "a URL such as https://mcp.example.com/mcp");
      if (!url) return std::unexpected(url.error());
      if (auto parsed = parseUrl(*url, draft.remote); !parsed) {
        return fail(e.line(), item_path + " '" + *url + "' " + parsed.error());
      }
      draft.remote.url = std::move(*url);
      draft.url_line = e.line();
      return {};
    }
    if (e.key == "type" || e.key == "transportType") {
      auto type = scalar(e, item_path, "a string");
      if (!type) return std::unexpected(type.error());
      draft.type = std::move(*type);
      draft.type_line = e.line();
      if (draft.type == "sse") {
        return fail(e.line(), item_path +
                                  " 'sse': the old HTTP+SSE transport is not supported; remote "
                                  "servers must speak Streamable HTTP (type 'http')");
      }
      if (draft.type != "stdio" && draft.type != "http" && draft.type != "streamable-http" &&
          draft.type != "streamableHttp") {
        return fail(e.line(), item_path + " '" + draft.type +
                                  "' must be stdio, or http for a remote server with a url");
      }
      return {};
    }
    if (e.key == "headers") return loadHeaders(e, item_path, draft.remote);
    if (e.key == "tls") return loadTls(e, item_path, draft.remote);
    if (e.key == "connect_timeout") {
      auto text = scalar(e, item_path, "a duration such as 10s");
      if (!text) return std::unexpected(text.error());
      auto value = parseDuration(*text);
      if (!value) return fail(e.line(), item_path + " '" + *text + "' " + value.error());
      if (value->count() == 0) return fail(e.line(), item_path + " must be greater than 0");
      draft.remote.connect_timeout = *value;
      return {};
    }
    // allow_insecure_http
    auto flag = scalar(e, item_path, "true or false");
    if (!flag) return std::unexpected(flag.error());
    if (*flag != "true" && *flag != "false")
      return fail(e.line(), item_path + " must be true or false");
    draft.remote.allow_insecure_http = *flag == "true";
    return {};
  }

  [[nodiscard]] std::expected<void, Error> finish(const std::string& path, bool has_command,
                                                  int command_line, RemoteDraft& draft,
                                                  ServerConfig& server) const {
    const bool http_type = !draft.type.empty() && draft.type != "stdio";
    if (draft.url_line == 0) {
      if (draft.first_line != 0) {
        return fail(draft.first_line, path + "." + draft.first_key +
                                          " is only for a remote server, which has a 'url'");
      }
      if (http_type) {
        return fail(draft.type_line, path + ".type '" + draft.type + "' needs a 'url'");
      }
      return {};
    }
    if (has_command) {
      return fail(command_line, path +
                                    " has both 'command' and 'url': a server is either a "
                                    "command the gateway starts or a remote url, not both");
    }
    if (draft.type == "stdio") {
      return fail(draft.type_line, path + ".type 'stdio' does not go with a 'url' (use 'http')");
    }
    RemoteConfig& remote = draft.remote;
    if (!remote.tls && !remote.allow_insecure_http && !common::isLoopbackHost(remote.host)) {
      return fail(draft.url_line,
                  path + ".url '" + remote.url +
                      "' is plain http to another host: its headers and every message would "
                      "cross the network unencrypted. Use https, or set allow_insecure_http: "
                      "true if the network is trusted");
    }
    if (!remote.tls && (!remote.ca_file.empty() || !remote.cert_file.empty())) {
      return fail(draft.url_line, path + ".tls is set but the url is plain http");
    }
    server.remote = std::move(remote);
    return {};
  }

 private:
  [[nodiscard]] std::expected<void, Error> loadHeaders(const Entry& e, const std::string& path,
                                                       RemoteConfig& remote) const {
    if (!e.value.IsMap() && !e.value.IsNull())
      return fail(e.line(), path + " must be a map of strings");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    for (const Entry& item : *items) {
      if (item.key.empty() || !std::all_of(item.key.begin(), item.key.end(), isTokenChar)) {
        return fail(lineOf(item.key_node),
                    path + " key '" + item.key + "' is not a valid HTTP header name");
      }
      for (std::string_view reserved : kReservedHeaders) {
        if (equalsIgnoreCase(item.key, reserved)) {
          return fail(lineOf(item.key_node), path + " key '" + item.key +
                                                 "' is set by the gateway itself and cannot be "
                                                 "configured");
        }
      }
      auto raw = scalar(item, path + "." + item.key, "a string");
      if (!raw) return std::unexpected(raw.error());
      auto value = expandVariables(*raw, lookupEnvironment);
      if (!value) return fail(item.line(), path + "." + item.key + ": " + value.error());
      // Checked after expansion: a variable must not smuggle in a second header.
      if (std::any_of(value->begin(), value->end(), [](char c) {
            return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
          })) {
        return fail(item.line(), path + "." + item.key +
                                     " contains a line break or control character, which HTTP "
                                     "headers cannot carry");
      }
      remote.headers.emplace_back(item.key, std::move(*value));
    }
    return {};
  }

  [[nodiscard]] std::expected<void, Error> loadTls(const Entry& e, const std::string& path,
                                                   RemoteConfig& remote) const {
    if (!e.value.IsMap() && !e.value.IsNull()) return fail(e.line(), path + " must be a map");
    auto items = entries(e.value, "in " + path);
    if (!items) return std::unexpected(items.error());
    int cert_line = 0;
    int key_line = 0;
    for (const Entry& item : *items) {
      std::string* target = nullptr;
      if (item.key == "ca_file") {
        target = &remote.ca_file;
      } else if (item.key == "cert_file") {
        target = &remote.cert_file;
        cert_line = item.line();
      } else if (item.key == "key_file") {
        target = &remote.key_file;
        key_line = item.line();
      } else {
        return unknownKey(item, "in " + path, {"ca_file", "cert_file", "key_file"});
      }
      auto file = readableFile(item, path + "." + item.key);
      if (!file) return std::unexpected(file.error());
      *target = std::move(*file);
    }
    if (cert_line != 0 && key_line == 0) {
      return fail(cert_line, path +
                                 ".cert_file needs key_file too (the client certificate's "
                                 "private key)");
    }
    if (key_line != 0 && cert_line == 0) {
      return fail(key_line, path + ".key_file needs cert_file too (the client certificate)");
    }
    return {};
  }
};

}  // namespace

bool isRemoteKey(std::string_view key, bool client_format) {
  if (key == "url" || key == "headers" || key == "tls" || key == "connect_timeout" ||
      key == "allow_insecure_http") {
    return true;
  }
  return client_format && (key == "serverUrl" || key == "type" || key == "transportType");
}

std::expected<void, Error> loadRemoteKey(const detail::Reader& reader, const detail::Entry& e,
                                         const std::string& path, RemoteDraft& draft) {
  return RemoteLoader(reader).load(e, path, draft);
}

std::expected<void, Error> finishRemote(const detail::Reader& reader, const std::string& path,
                                        bool has_command, int command_line, RemoteDraft& draft,
                                        ServerConfig& server) {
  return RemoteLoader(reader).finish(path, has_command, command_line, draft, server);
}

void emitRemoteServer(YAML::Emitter& out, const RemoteConfig& remote) {
  // A query string may carry a key: shown as "<set>" like the headers.
  const std::size_t query = remote.url.find('?');
  out << YAML::Key << "url" << YAML::Value
      << (query == std::string::npos ? remote.url : remote.url.substr(0, query) + "?<set>");
  out << YAML::Key << "headers" << YAML::Value;
  detail::emitEnv(out, remote.headers);
  if (remote.tls) {
    // No ca_file: the system's CA bundle.
    out << YAML::Key << "tls" << YAML::Value << YAML::BeginMap;
    if (!remote.ca_file.empty()) out << YAML::Key << "ca_file" << YAML::Value << remote.ca_file;
    if (!remote.cert_file.empty()) {
      out << YAML::Key << "cert_file" << YAML::Value << remote.cert_file;
      out << YAML::Key << "key_file" << YAML::Value << remote.key_file;
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "connect_timeout" << YAML::Value << formatDuration(remote.connect_timeout);
  if (remote.allow_insecure_http) out << YAML::Key << "allow_insecure_http" << YAML::Value << true;
}

}  // namespace mcpgate::config
