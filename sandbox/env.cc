#include "sandbox/env.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace mcpgate::sandbox {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// Each of these makes a dynamic loader, an interpreter or a shell run code
// the operator did not choose, or changes where it looks for code.
constexpr std::array<std::string_view, 2> kDeniedPrefixes = {"LD_", "DYLD_"};
constexpr std::array<std::string_view, 33> kDeniedNames = {"NODE_OPTIONS",
                                                           "NODE_PATH",
                                                           "NODE_REPL_EXTERNAL_MODULE",
                                                           "NPM_CONFIG_NODE_OPTIONS",
                                                           "PYTHONPATH",
                                                           "PYTHONSTARTUP",
                                                           "PYTHONHOME",
                                                           "PYTHONINSPECT",
                                                           "PYTHONUSERBASE",
                                                           "PYTHONBREAKPOINT",
                                                           "PYTHONWARNINGS",
                                                           "BASH_ENV",
                                                           "ENV",
                                                           "PERL5LIB",
                                                           "PERL5OPT",
                                                           "PERLLIB",
                                                           "RUBYLIB",
                                                           "RUBYOPT",
                                                           "JAVA_TOOL_OPTIONS",
                                                           "_JAVA_OPTIONS",
                                                           "JDK_JAVA_OPTIONS",
                                                           "GCONV_PATH",
                                                           "GLIBC_TUNABLES",
                                                           "MALLOC_CHECK_",
                                                           "HOSTALIASES",
                                                           "LOCPATH",
                                                           "NLSPATH",
                                                           "RES_OPTIONS",
                                                           "LOCALDOMAIN",
                                                           "SHELLOPTS",
                                                           "BASHOPTS",
                                                           "PS4",
                                                           "IFS"};

}  // namespace

bool isDeniedEnvName(std::string_view name) {
  std::string n = upper(name);
  if (std::ranges::find(kDeniedNames, n) != kDeniedNames.end()) return true;
  return std::ranges::any_of(kDeniedPrefixes, [&](std::string_view p) { return n.starts_with(p); });
}

SandboxEnv buildSandboxEnv(const std::vector<std::pair<std::string, std::string>>& declared) {
  SandboxEnv env;
  std::vector<std::pair<std::string, std::string>> vars;
  auto set = [&](const std::string& key, const std::string& value) {
    auto it = std::ranges::find_if(vars, [&](const auto& kv) { return kv.first == key; });
    if (it != vars.end()) {
      it->second = value;
    } else {
      vars.emplace_back(key, value);
    }
  };
  for (const auto& [key, value] : declared) {
    std::string u = upper(key);
    if (u == "PATH" || u == "HOME" || u == "TMPDIR") continue;  // fixed below
    if (isDeniedEnvName(key)) {
      if (std::ranges::find(env.dropped, key) == env.dropped.end()) env.dropped.push_back(key);
      continue;
    }
    set(key, value);
  }
  set("PATH", kSafePath);
  set("HOME", kSandboxHome);
  set("TMPDIR", "/tmp");
  for (const auto& [key, value] : vars) env.entries.push_back(key + "=" + value);
  return env;
}

}  // namespace mcpgate::sandbox
