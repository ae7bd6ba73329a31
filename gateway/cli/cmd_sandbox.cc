// `mcpgate sandbox run|probe`: the sandbox module's own command, with the
// process's stdio. (The hidden `sandbox-init` mode is dispatched in main.cc
// before anything else, since it must stay single-threaded.)
//
// `sandbox run -c FILE --server NAME` is handled here rather than in sandbox/:
// it needs the config module, and sandbox/ must not depend on config/.

#include <algorithm>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"
#include "gateway/cli/cli.h"
#include "gateway/cli/serve_common.h"
#include "gateway/upstream/spawn_spec.h"
#include "sandbox/entry.h"

namespace mcpgate::gateway {
namespace {

constexpr std::string_view kServerUsage =
    "usage: sandbox run -c FILE --server NAME [--report]\n"
    "  runs that server's own command and args under its sandbox from FILE, with this\n"
    "  terminal's stdio; the config's command allowlist and argument checks apply\n";

struct ServerRun {
  std::string file;
  std::string server;
  bool report = false;
};

bool isConfigFlag(std::string_view word) { return word == "-c" || word == "--config"; }

// nullopt when `args` (after "run") are the plain `sandbox run` options.
std::optional<ServerRun> parseServerRun(Args args, std::string& error) {
  // After "--" come CMD's own words (`-- python3 -c ...`).
  const auto options = std::find_if(args.begin(), args.end(),
                                    [](const char* word) { return std::strcmp(word, "--") == 0; });
  const bool wanted = std::any_of(args.begin(), options, [](const char* word) {
    return isConfigFlag(word) || std::string_view(word) == "--server";
  });
  if (!wanted) return std::nullopt;
  ServerRun run;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view word = args[i];
    if (word == "--report") {
      run.report = true;
    } else if ((isConfigFlag(word) || word == "--server") && i + 1 < args.size()) {
      (word == "--server" ? run.server : run.file) = args[++i];
    } else if (isConfigFlag(word) || word == "--server") {
      error = std::string(word) + " needs a value";
      return run;
    } else {
      error = "'" + std::string(word) +
              "' cannot be combined with --server: the server's sandbox and command come from "
              "the config";
      return run;
    }
  }
  if (run.file.empty() || run.server.empty()) error = "-c FILE and --server NAME go together";
  return run;
}

int runServer(const ServerRun& run) {
  auto loaded = config::loadConfig(run.file);
  if (!loaded) {
    std::cerr << "sandbox run: " << loaded.error().message << "\n";
    return 2;
  }
  const config::Config& config = **loaded;
  auto found = config.servers.find(run.server);
  if (found == config.servers.end()) {
    std::string names;
    for (const auto& [name, server] : config.servers) names += (names.empty() ? "" : ", ") + name;
    std::cerr << "sandbox run: no server '" << run.server << "' in " << run.file
              << " (servers: " << names << ")\n";
    return 2;
  }
  const config::ServerConfig& server = found->second;
  auto spec = spawnSpecFor(config, server);
  if (!spec) {
    std::cerr << "sandbox run: cannot start '" << server.name << "': " << spec.error() << "\n";
    return 2;
  }
  spec->sandbox->report = run.report;
  return sandbox::runSpec(*spec, std::cout, std::cerr);
}

}  // namespace

int runSandbox(Args args) {
  if (!args.empty() && std::strcmp(args[0], "run") == 0) {
    std::string error;
    auto run = parseServerRun(args.subspan(1), error);
    if (run && !error.empty()) {
      std::cerr << "sandbox run: " << error << "\n" << kServerUsage;
      return 2;
    }
    if (run) return runServer(*run);
  }
  return sandbox::sandboxCommandMain(args, std::cout, std::cerr);
}

}  // namespace mcpgate::gateway
