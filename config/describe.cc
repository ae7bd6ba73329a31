// describeConfig: the effective config as YAML, for `mcpgate config check`
// and the reload log. No env value appears: each is written as "<set>".

#include <yaml-cpp/yaml.h>

#include <exception>
#include <string>

#include "config/address.h"
#include "config/audit_section.h"
#include "config/auth_section.h"
#include "config/config.h"
#include "config/dlp_section.h"
#include "config/policy_section.h"
#include "config/remote_section.h"
#include "config/sandbox_section.h"
#include "config/server_section.h"
#include "config/units.h"
#include "config/yaml_support.h"

namespace mcpgate::config {

namespace {

void emitPool(YAML::Emitter& out, const PoolConfig& pool) {
  out << YAML::Key << "pool" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "size" << YAML::Value << pool.size;
  out << YAML::Key << "start" << YAML::Value << pool.start;
  if (pool.idle_timeout) {
    out << YAML::Key << "idle_timeout" << YAML::Value << formatDuration(*pool.idle_timeout);
  }
  out << YAML::EndMap;
}

void emitServer(YAML::Emitter& out, const std::string& name, const ServerConfig& server) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  if (server.remote) {
    emitRemoteServer(out, *server.remote);
    out << YAML::Key << "protocol" << YAML::Value << std::string(protocolChoiceName(server.protocol));
    emitPool(out, server.pool);
    out << YAML::EndMap;
    return;
  }
  out << YAML::Key << "command" << YAML::Value << server.command;
  out << YAML::Key << "args" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const std::string& arg : server.args) out << arg;
  out << YAML::EndSeq;
  out << YAML::Key << "env" << YAML::Value;
  detail::emitEnv(out, server.env);
  out << YAML::Key << "cwd" << YAML::Value << server.cwd;
  out << YAML::Key << "sandbox" << YAML::Value;
  emitServerSandbox(out, name, server.sandbox);
  out << YAML::Key << "protocol" << YAML::Value << std::string(protocolChoiceName(server.protocol));
  emitPool(out, server.pool);
  out << YAML::EndMap;
}

}  // namespace

std::string describeConfig(const Config& config) {
  try {
    YAML::Emitter out;
    out << YAML::Comment("effective config loaded from " + config.source);
    out << YAML::BeginMap;
    out << YAML::Key << "listen" << YAML::Value
        << formatHostPort(config.listen_host, config.listen_port);
    if (!config.allowed_hosts.empty()) {
      out << YAML::Key << "allowed_hosts" << YAML::Value << YAML::Flow << config.allowed_hosts;
    }
    if (!config.allowed_origins.empty()) {
      out << YAML::Key << "allowed_origins" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const std::string& origin : config.allowed_origins) out << origin;
      out << YAML::EndSeq;
    }
    out << YAML::Key << "log_level" << YAML::Value << config.log_level;
    out << YAML::Key << "cache_dir" << YAML::Value << config.cache_dir;
    out << YAML::Key << "state_dir" << YAML::Value << config.state_dir;
    out << YAML::Key << "session" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "idle_timeout" << YAML::Value
        << formatDuration(config.session.idle_timeout);
    out << YAML::Key << "grace" << YAML::Value << formatDuration(config.session.grace);
    out << YAML::Key << "request_timeout" << YAML::Value
        << formatDuration(config.session.request_timeout);
    out << YAML::Key << "max_per_client" << YAML::Value << config.session.max_per_client;
    out << YAML::EndMap;
    out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "max_body_bytes" << YAML::Value << formatSize(config.limits.max_body_bytes);
    out << YAML::Key << "max_json_depth" << YAML::Value << config.limits.max_json_depth;
    out << YAML::Key << "max_line_bytes" << YAML::Value << formatSize(config.limits.max_line_bytes);
    out << YAML::Key << "max_sessions" << YAML::Value << config.limits.max_sessions;
    out << YAML::Key << "max_connections_per_address" << YAML::Value
        << config.limits.max_connections_per_address;
    out << YAML::Key << "max_connections_per_client" << YAML::Value
        << config.limits.max_connections_per_client;
    out << YAML::Key << "max_stream_queue_bytes" << YAML::Value
        << formatSize(config.limits.max_stream_queue_bytes);
    out << YAML::Key << "max_session_queue_bytes" << YAML::Value
        << formatSize(config.limits.max_session_queue_bytes);
    out << YAML::Key << "max_queued_bytes" << YAML::Value
        << formatSize(config.limits.max_queued_bytes);
    out << YAML::Key << "stream_stall_timeout" << YAML::Value
        << formatDuration(config.limits.stream_stall_timeout);
    out << YAML::EndMap;
    out << YAML::Key << "sandbox" << YAML::Value;
    emitGlobalSandbox(out, config.sandbox);
    out << YAML::Key << "dlp" << YAML::Value;
    emitDlpSection(out, config.dlp);
    if (config.audit.enabled) {
      out << YAML::Key << "audit" << YAML::Value;
      emitAuditSection(out, config.audit);
    }
    if (!config.policies.empty()) {
      out << YAML::Key << "policies" << YAML::Value;
      emitPolicies(out, config.policies);
    }
    out << YAML::Key << "pins" << YAML::Value;
    emitPins(out, config.pins);
    if (config.auth.enabled()) {
      out << YAML::Key << "auth" << YAML::Value;
      emitAuthSection(out, config.auth);
    }
    out << YAML::Key << "insecure_no_auth" << YAML::Value << config.insecure_no_auth;
    if (config.tls.enabled()) {
      out << YAML::Key << "tls" << YAML::Value;
      emitTlsSection(out, config.tls);
    }
    out << YAML::Key << "servers" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, server] : config.servers) emitServer(out, name, server);
    out << YAML::EndMap;
    out << YAML::EndMap;
    std::string text = out.good() ? std::string(out.c_str()) + "\n"
                                  : "# cannot describe the config: " + out.GetLastError() + "\n";
    if (config.allowed_origins.empty()) {
      // A comment, not a key: the default has no spelling as a list of origins.
      text +=
          "# allowed_origins not set: browsers may call only from http(s)://localhost, "
          "127.0.0.1 and [::1] on any port\n";
    }
    return text;
  } catch (const std::exception& e) {
    return std::string("# cannot describe the config: ") + e.what() + "\n";
  }
}

}  // namespace mcpgate::config
