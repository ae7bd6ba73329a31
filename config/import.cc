#include "config/import.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "config/visibility.h"

namespace mcpgate::config {
namespace {

std::string reference(const std::string& variable) {
  std::string text = "${";
  text.append(variable).append("}");
  return text;
}

// AUTHORIZATION for ("github", "Authorization"): GITHUB_AUTHORIZATION.
std::string variableFor(const std::string& server, const std::string& header) {
  std::string name;
  for (char c : server + "_" + header) {
    name += std::isalnum(static_cast<unsigned char>(c)) != 0
                ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                : '_';
  }
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) != 0) {
    name = std::string("_").append(name);
  }
  return name;
}

}  // namespace

std::string importedYaml(const Config& config) {
  std::map<std::string, std::set<std::string>> binds;  // server -> host paths
  for (const HiddenPath& hidden : hiddenPaths(config)) binds[hidden.server].insert(hidden.bind);
  std::vector<std::string> variables;

  YAML::Emitter out;
  out << YAML::Comment("mcpgate config imported from " + config.source +
                       ": review it, then `mcpgate config check` it");
  out << YAML::BeginMap;
  out << YAML::Key << "listen" << YAML::Value << "127.0.0.1:8080";
  out << YAML::Key << "servers" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, server] : config.servers) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    if (server.remote) {
      out << YAML::Key << "url" << YAML::Value << server.remote->url;
      if (!server.remote->headers.empty()) {
        out << YAML::Key << "headers" << YAML::Value << YAML::BeginMap;
        for (const auto& [header, value] : server.remote->headers) {
          const std::string variable = variableFor(name, header);
          out << YAML::Key << header << YAML::Value << reference(variable);
          variables.push_back(variable);
        }
        out << YAML::EndMap;
      }
      out << YAML::EndMap;
      continue;
    }
    out << YAML::Key << "command" << YAML::Value << server.command;
    if (!server.args.empty()) {
      out << YAML::Key << "args" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const std::string& arg : server.args) out << arg;
      out << YAML::EndSeq;
    }
    if (!server.env.empty()) {
      out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
      for (const auto& [key, value] : server.env) {
        out << YAML::Key << key << YAML::Value << reference(key);
        variables.push_back(key);
      }
      out << YAML::EndMap;
    }
    if (auto found = binds.find(name); found != binds.end()) {
      out << YAML::Key << "sandbox" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "binds" << YAML::Value << YAML::BeginSeq;
      for (const std::string& path : found->second) {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "src" << YAML::Value << path
            << YAML::Key << "dst" << YAML::Value << path << YAML::EndMap;
      }
      out << YAML::EndSeq << YAML::EndMap;
      out << YAML::Comment("host paths in its args; read-only, add ro: false to let it write");
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
  std::string text = out.c_str();
  text += "\n";
  if (!variables.empty()) {
    text += "# Values stay out of this file: set these in the gateway's environment:\n#  ";
    for (const std::string& v : variables) text += " " + v;
    text += "\n";
  }
  bool npx = false;
  for (const auto& [name, server] : config.servers) npx = npx || server.command == "npx";
  if (npx) {
    text +=
        "# npx servers run offline in the sandbox: install their packages once with\n"
        "#   mcpgate install -c THIS_FILE\n";
  }
  return text;
}

}  // namespace mcpgate::config
