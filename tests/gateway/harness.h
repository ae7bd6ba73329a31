#pragma once

// Test harness: the real mcpgate binary on port 0 with a config written by
// the test, and a plain-socket HTTP/1.1 client (no Beast: keeps tests quick
// to compile and independent of the code under test).

#include <sys/types.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::testing {

using nlohmann::json;

// A fresh directory under /tmp, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  [[nodiscard]] const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

std::string mcpgateBinary();
std::string sourceDir();
// The test server as the sandboxed server sees it, and the server-level
// config lines (`sandbox:` with the bind) that make it visible there.
std::string testServerPath();
std::string testServerSandbox();
// A `servers:` entry named `name` running the test server; `extra` holds more
// server-level lines ("    env: {...}\n").
std::string testServerYaml(const std::string& name = "test", const std::string& extra = "");
// A rule file with two request rules: test-warn-marker (WARNME-NNNNNN, warn)
// and test-log-marker (LOGME-NNNNNN, log).
std::string markerRulesYaml();
// A whole config up to the caller's sections: `listen` on port 0, one
// recording test server named "test" that appends every line it receives to
// <record_dir>/received.jsonl (the server runs as another user: record_dir
// must be writable by all), and short session timeouts. `env` adds
// ", NAME: value" pairs to the server's environment.
std::string recordingGatewayYaml(const std::string& record_dir, const std::string& env = "");
// The gateway log's lines whose "msg" is `msg`, parsed ("dlp finding", "policy decision").
std::vector<json> logEntries(const std::string& log, const std::string& msg);
// A whole file as text; empty if it cannot be read (not written yet).
std::string readFile(const std::string& path);
bool processExists(pid_t pid);  // false once reaped (a zombie still exists)
// Every process below `root` (children, grandchildren, ...), read from /proc:
// with the sandbox, a server's host pid is known only this way.
std::set<pid_t> descendants(pid_t root);
bool anyAlive(const std::set<pid_t>& pids);
bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout);
// A process's resident set in KiB (VmRSS in /proc/<pid>/status), or -1.
long rssKiB(pid_t pid);

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command to completion with stdin from /dev/null.
CommandResult runCommand(const std::string& command);

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  [[nodiscard]] std::string header(const std::string& name) const;
  [[nodiscard]] json json_body() const { return json::parse(body); }
  // The `data:` payloads of an SSE body, parsed.
  [[nodiscard]] std::vector<json> events() const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// One request on its own connection (Connection: close).
HttpResponse http(int port, const std::string& method, const std::string& path,
                  const Headers& headers = {}, const std::string& body = "");

// A request whose response is read bit by bit: for SSE streams.
class StreamingRequest {
 public:
  StreamingRequest(int port, const std::string& method, const std::string& path,
                   const Headers& headers, const std::string& body);
  ~StreamingRequest();
  // Reads until the raw response contains `needle`; false on timeout or EOF.
  bool readUntil(const std::string& needle, std::chrono::milliseconds timeout);
  // Reads to the end of the response (the server closes or ends the chunks).
  HttpResponse finish(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  [[nodiscard]] const std::string& raw() const { return raw_; }

 private:
  int fd_ = -1;
  std::string raw_;
};

HttpResponse parseResponse(const std::string& raw);

// A tools/call request, and the text of the first content item of its result.
// {"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":...}}
json toolCall(int id, const std::string& tool, const json& arguments = json::object());
// An initialize request (id 0) from a client named "gtest".
json initializeRequest(const std::string& protocol_version = "2025-06-18");
std::string text(const json& response);

// How a Gateway is started beyond its config: a command it runs under
// (setpriv to drop root), arguments after `serve -c FILE`, and the user its
// directory is given to first (a gateway that runs as that user writes there).
struct Launch {
  std::vector<std::string> wrapper;
  std::vector<std::string> serve_args;
  std::optional<uid_t> dir_owner;
};

class Gateway {
 public:
  // Writes `config_yaml` (which should say `listen: 127.0.0.1:0`, or 0.0.0.0:0
  // with auth; requests go to 127.0.0.1) and starts
  // `mcpgate serve` with extra environment variables.
  explicit Gateway(const std::string& config_yaml, const std::vector<std::string>& extra_env = {},
                   const Launch& launch = {});
  ~Gateway();

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string log() const;
  [[nodiscard]] const TempDir& dir() const { return dir_; }
  // Sends SIGTERM and waits; the exit status, or nullopt on timeout.
  std::optional<int> stop(std::chrono::milliseconds timeout = std::chrono::seconds(15));

  // MCP helpers on /mcp/<server>; server "" is the aggregate endpoint /mcp.
  HttpResponse post(const std::string& server, const json& message, const std::string& session,
                    const std::string& accept = "application/json, text/event-stream",
                    const Headers& extra = {});
  // initialize + notifications/initialized; returns the session id.
  std::string initialize(const std::string& server,
                         const std::string& protocol_version = "2025-06-18");
  // tools/call on an initialized session, answered as JSON.
  json callTool(const std::string& server, const std::string& session, const std::string& tool,
                const json& arguments, int id = 100);

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
};

// Samples the gateway's RSS every 100 ms until its log holds `line` and 2 s more (what a server
// sends meanwhile is dropped), or until `timeout`: the peak from `before`, and whether it came.
struct RssWatch {
  long peak;
  bool seen;
};
RssWatch watchRssUntilLogged(const Gateway& gw, long before, std::string_view line,
                             std::chrono::seconds timeout);

}  // namespace mcpgate::testing
