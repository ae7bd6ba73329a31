#pragma once

// The keys of a remote server, one reached over Streamable HTTP at `url:`
// instead of started from `command:` (config/ only).

#include <yaml-cpp/yaml.h>

#include <expected>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

// What a server's remote keys said, kept until the whole server is read.
struct RemoteDraft {
  RemoteConfig remote;
  int url_line = 0;  // 0: no url
  int first_line = 0;
  std::string first_key;  // the first remote key seen, for "needs url"
  std::string type;       // client format's `type` / `transportType`, if given
  int type_line = 0;
};

// url, headers, tls, connect_timeout, allow_insecure_http; in the clients'
// JSON format also serverUrl, type and transportType.
[[nodiscard]] bool isRemoteKey(std::string_view key, bool client_format);

// Reads one such key of the server at `path` ("servers.NAME").
[[nodiscard]] std::expected<void, Error> loadRemoteKey(const detail::Reader& reader,
                                                       const detail::Entry& e,
                                                       const std::string& path, RemoteDraft& draft);

// Once the server is read: checks the keys go together and, for a url server,
// sets server.remote. `has_command` says whether `command` was given.
[[nodiscard]] std::expected<void, Error> finishRemote(const detail::Reader& reader,
                                                      const std::string& path, bool has_command,
                                                      int command_line, RemoteDraft& draft,
                                                      ServerConfig& server);

// The effective remote server, for `mcpgate config check`; header values
// are shown as "<set>".
void emitRemoteServer(YAML::Emitter& out, const RemoteConfig& remote);

}  // namespace mcpgate::config
