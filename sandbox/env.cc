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

// Each of these makes a dynamic loader, an interpreter, a shell or a tool a
// server runs (npm, git, an editor) execute code the operator did not choose,
// or changes where it looks for code. Checked against each runtime's own
// documentation of its environment (Node, Bun, Python, Perl, Ruby, bash,
// glibc, OpenSSL, npm, git).
constexpr auto kDeniedPrefixes = std::to_array<std::string_view>({
    "LD_",               // the dynamic loader (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, ...)
    "DYLD_",             // the same on macOS, for configs carried across
    "BUN_",              // Bun's runtime and install hooks (BUN_OPTIONS, BUN_INSTALL, ...)
    "BASH_FUNC_",        // exported bash functions: redefine any command a script runs
    "GIT_CONFIG_KEY_",   // GIT_CONFIG_KEY_n/VALUE_n: any git setting (core.sshCommand,
    "GIT_CONFIG_VALUE_"  // core.fsmonitor, ... run commands)
});

// Runtimes whose every hook shares a prefix: all of it is refused but for
// these variables, which change output, warnings, trusted CA roots or the
// use of the proxy variables, and load no code.
constexpr auto kDeniedFamilies = std::to_array<std::string_view>({"NODE_", "PYTHON"});
constexpr auto kFamilyAllowed = std::to_array<std::string_view>(
    {"NODE_ENV", "NODE_NO_WARNINGS", "NODE_DEBUG", "NODE_EXTRA_CA_CERTS", "NODE_USE_ENV_PROXY", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
     "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED", "PYTHONNOUSERSITE", "PYTHONSAFEPATH",
     "PYTHONFAULTHANDLER"});

constexpr auto kDeniedNames = std::to_array<std::string_view>(
    {// Shells: startup files, options, the shell other programs start.
     "SHELL", "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH",
     "GLOBIGNORE",
     // Perl and Ruby.
     "PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB", "PERL_MB_OPT", "PERL_MM_OPT", "RUBYLIB",
     "RUBYOPT", "RUBYSHELL",
     // The JVM.
     "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
     // npm (npm_config_* is read case-insensitively): what npx and install scripts run.
     "NPM_CONFIG_NODE_OPTIONS", "NPM_CONFIG_SCRIPT_SHELL", "NPM_CONFIG_SHELL",
     "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG", "NPM_CONFIG_ONLOAD_SCRIPT",
     "NPM_CONFIG_NODE_GYP", "NPM_CONFIG_GIT",
     // git, which servers such as mcp-server-git and npm's git dependencies run.
     "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR",
     "GIT_PAGER", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
     "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR",
     // Programs that tools start for the user.
     "EDITOR", "VISUAL", "PAGER",
     // glibc and OpenSSL: both load shared objects named by these.
     "GCONV_PATH", "GLIBC_TUNABLES", "MALLOC_CHECK_", "HOSTALIASES", "LOCPATH", "NLSPATH",
     "RES_OPTIONS", "LOCALDOMAIN", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES"});

}  // namespace

bool isDeniedEnvName(std::string_view name) {
  std::string n = upper(name);
  if (std::ranges::find(kDeniedNames, n) != kDeniedNames.end()) return true;
  auto starts = [&](std::string_view p) { return n.starts_with(p); };
  if (std::ranges::any_of(kDeniedPrefixes, starts)) return true;
  return std::ranges::any_of(kDeniedFamilies, starts) &&
         std::ranges::find(kFamilyAllowed, n) == kFamilyAllowed.end();
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

void addProxyEnv(SandboxEnv& env, const std::string& proxy_url, const std::string& node_preload) {
  std::vector<std::pair<std::string, std::string>> add = {
      {"HTTP_PROXY", proxy_url}, {"HTTPS_PROXY", proxy_url}, {"http_proxy", proxy_url},
      {"https_proxy", proxy_url}, {"ALL_PROXY", proxy_url},  {"all_proxy", proxy_url},
      {"NO_PROXY", ""},           {"no_proxy", ""}};
  if (!node_preload.empty()) {
    std::string require = "--require ";
    require += node_preload;
    add.emplace_back("NODE_OPTIONS", std::move(require));
  }
  std::erase_if(env.entries, [&](const std::string& entry) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    return std::ranges::any_of(add, [&](const auto& kv) { return kv.first == name; });
  });
  for (const auto& [key, value] : add) {
    std::string entry = key;
    entry += '=';
    entry += value;
    env.entries.push_back(std::move(entry));
  }
}

}  // namespace mcpgate::sandbox
