#include "tests/gateway/harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcpgate::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "mcpgate-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string p = path_ + "/" + name;
  std::ofstream(p) << content;
  return p;
}

std::string mcpgateBinary() {
  const char* bin = std::getenv("MCPGATE_BIN");
  return bin ? bin : MCPGATE_DEFAULT_BIN;
}

std::string sourceDir() { return MCPGATE_SOURCE_DIR; }
namespace {
constexpr const char* kTestServersInside = "/opt/mcpgate-tests";
}

std::string testServerPath() { return std::string(kTestServersInside) + "/test_server.mjs"; }

std::string testServerSandbox() {
  return "    sandbox:\n      binds: [{src: " + sourceDir() +
         "/tests/servers, dst: " + kTestServersInside + "}]\n";
}

std::string markerRulesYaml() {
  return "defaults:\n"
         "  category: custom\n"
         "  severity: low\n"
         "  directions: [request]\n"
         "rules:\n"
         "  - id: test-warn-marker\n"
         "    description: a marker that warns\n"
         "    pattern: 'WARNME-[0-9]{6}'\n"
         "    action: warn\n"
         "  - id: test-log-marker\n"
         "    description: a marker that is only logged\n"
         "    pattern: 'LOGME-[0-9]{6}'\n"
         "    action: log\n";
}

std::string testServerYaml(const std::string& name, const std::string& extra) {
  return "  " + name + ":\n    command: node\n    args: [" + testServerPath() + "]\n" +
         testServerSandbox() + extra;
}

std::string recordingGatewayYaml(const std::string& record_dir, const std::string& env) {
  return "listen: 127.0.0.1:0\n"
         "servers:\n"
         "  test:\n"
         "    command: node\n"
         "    args: [" +
         testServerPath() + "]\n    env: {TEST_SERVER_RECORD: /record/received.jsonl" + env +
         "}\n"
         "    sandbox:\n"
         "      binds: [{src: " +
         sourceDir() + "/tests/servers, dst: " + kTestServersInside + "}, {src: " + record_dir +
         ", dst: /record, ro: false}]\n"
         "session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}\n";
}

std::vector<json> logEntries(const std::string& log, const std::string& msg) {
  std::vector<json> out;
  std::istringstream in(log);
  std::string line;
  const std::string needle = "\"" + msg + "\"";
  while (std::getline(in, line)) {
    if (line.find(needle) == std::string::npos) continue;
    json entry = json::parse(line, nullptr, false);
    if (!entry.is_discarded() && entry.value("msg", "") == msg) out.push_back(std::move(entry));
  }
  return out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    children.emplace(ppid, static_cast<pid_t>(std::stoi(name)));
  }
  std::set<pid_t> found;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    const pid_t parent = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(parent); it != end; ++it) {
      if (found.insert(it->second).second) todo.push_back(it->second);
    }
  }
  return found;
}

bool anyAlive(const std::set<pid_t>& pids) {
  return std::ranges::any_of(pids, [](pid_t pid) { return processExists(pid); });
}

bool processExists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

long rssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

CommandResult runCommand(const std::string& command) {
  CommandResult result;
  FILE* p = ::popen((command + " 2>&1 </dev/null").c_str(), "r");
  if (p == nullptr) return result;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) result.output += buf;
  int status = ::pclose(p);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::vector<json> HttpResponse::events() const {
  std::vector<json> out;
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("data: ", 0) == 0) out.push_back(json::parse(line.substr(6)));
  }
  return out;
}

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int connectTo(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to the gateway on port " + std::to_string(port));
  }
  return fd;
}

void sendAll(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server may refuse early (413)
    off += static_cast<std::size_t>(n);
  }
}

std::string buildRequest(const std::string& method, const std::string& path, const Headers& headers,
                         const std::string& body) {
  std::string req = method + " " + path + " HTTP/1.1\r\nConnection: close\r\n";
  bool has_host = false;  // a test may name its own Host
  for (const auto& [k, v] : headers) {
    req.append(k).append(": ").append(v).append("\r\n");
    has_host = has_host || k == "Host";
  }
  if (!has_host) req += "Host: 127.0.0.1\r\n";
  if (!body.empty() || method == "POST")
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  return req;
}

// Reads what is there within `timeout`; false on EOF or timeout with nothing.
bool readSome(int fd, std::string& out, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  char buf[65536];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n <= 0) return false;
  out.append(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

HttpResponse parseResponse(const std::string& raw) {
  HttpResponse r;
  auto head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return r;
  std::istringstream head(raw.substr(0, head_end));
  std::string line;
  std::getline(head, line);
  if (line.size() > 12) r.status = std::stoi(line.substr(9, 3));
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[lower(line.substr(0, colon))] = value;
  }
  std::string body = raw.substr(head_end + 4);
  if (lower(r.header("transfer-encoding")) == "chunked") {
    std::string decoded;
    std::size_t pos = 0;
    while (pos < body.size()) {
      auto eol = body.find("\r\n", pos);
      if (eol == std::string::npos) break;
      std::size_t size = std::stoul(body.substr(pos, eol - pos), nullptr, 16);
      if (size == 0) break;
      decoded += body.substr(eol + 2, size);
      pos = eol + 2 + size + 2;
    }
    body = decoded;
  }
  r.body = body;
  return r;
}

HttpResponse http(int port, const std::string& method, const std::string& path,
                  const Headers& headers, const std::string& body) {
  StreamingRequest request(port, method, path, headers, body);
  return request.finish();
}

StreamingRequest::StreamingRequest(int port, const std::string& method, const std::string& path,
                                   const Headers& headers, const std::string& body)
    : fd_(connectTo(port)) {
  sendAll(fd_, buildRequest(method, path, headers, body));
}

StreamingRequest::~StreamingRequest() {
  if (fd_ >= 0) ::close(fd_);
}

bool StreamingRequest::readUntil(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (raw_.find(needle) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !readSome(fd_, raw_, left))
      return raw_.find(needle) != std::string::npos;
  }
  return true;
}

HttpResponse StreamingRequest::finish(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !readSome(fd_, raw_, left)) break;
  }
  return parseResponse(raw_);
}

Gateway::Gateway(const std::string& config_yaml, const std::vector<std::string>& extra_env,
                 const Launch& launch) {
  // Tool pins live in state_dir: each gateway of a test gets its own, so no
  // test sees pins another run (or another version of the test server) left.
  const bool has_state_dir = config_yaml.starts_with("state_dir:") ||
                             config_yaml.find("\nstate_dir:") != std::string::npos;
  std::string config = dir_.write(
      "mcpgate.yaml",
      has_state_dir ? config_yaml : config_yaml + "\nstate_dir: " + dir_.path() + "/state\n");
  log_path_ = dir_.path() + "/gateway.log";
  std::string bin = mcpgateBinary();
  if (launch.dir_owner) {
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) {
      (void)!::chown(entry.path().c_str(), *launch.dir_owner, *launch.dir_owner);
    }
    (void)!::chown(dir_.path().c_str(), *launch.dir_owner, *launch.dir_owner);
  }
  std::vector<std::string> argv_strings = launch.wrapper;
  argv_strings.insert(argv_strings.end(), {bin, "serve", "-c", config});
  argv_strings.insert(argv_strings.end(), launch.serve_args.begin(), launch.serve_args.end());
  std::vector<char*> argv;
  argv.reserve(argv_strings.size() + 1);
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ == 0) {
    int log = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(log, STDERR_FILENO);
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    for (const auto& e : extra_env) ::putenv(const_cast<char*>(e.c_str()));
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // A gateway that compiles the shipped packs without a cache (about 2 s of CPU; 17 s under
  // ASan, as an unprivileged gateway that cannot read root's cache is) takes several times that
  // on a loaded machine; the wait ends as soon as the port is logged.
  bool up = waitUntil(
      [&] {
        std::string text = log();
        // 127.0.0.1:PORT, or 0.0.0.0:PORT for a config that listens beyond loopback.
        auto at = text.find("\"address\":\"");
        if (at == std::string::npos) return false;
        auto end = text.find('"', at + 11);
        auto colon = end == std::string::npos ? end : text.rfind(':', end);
        if (colon == std::string::npos || colon < at + 11) return false;
        port_ = std::stoi(text.substr(colon + 1));
        return true;
      },
      std::chrono::seconds(90));
  if (!up) throw std::runtime_error("gateway did not start; log:\n" + log());
}

Gateway::~Gateway() {
  if (pid_ > 0) (void)stop();
}

RssWatch watchRssUntilLogged(const Gateway& gw, long before, std::string_view line,
                             std::chrono::seconds timeout) {
  RssWatch watch{before, false};
  std::optional<Clock::time_point> seen;
  const auto start = Clock::now();
  while (Clock::now() - start < timeout && (!seen || Clock::now() - *seen < std::chrono::seconds(2))) {
    watch.peak = std::max(watch.peak, rssKiB(gw.pid()));
    if (!seen && gw.log().find(line) != std::string::npos) seen = Clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  watch.seen = seen.has_value();
  return watch;
}

std::string Gateway::log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<int> Gateway::stop(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  ::kill(pid_, SIGTERM);
  auto deadline = Clock::now() + timeout;
  int status = 0;
  while (Clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return std::nullopt;
}

HttpResponse Gateway::post(const std::string& server, const json& message,
                           const std::string& session, const std::string& accept,
                           const Headers& extra) {
  Headers headers = {{"Content-Type", "application/json"}, {"Accept", accept}};
  if (!session.empty()) headers.emplace_back("Mcp-Session-Id", session);
  headers.insert(headers.end(), extra.begin(), extra.end());
  return http(port_, "POST", server.empty() ? "/mcp" : "/mcp/" + server, headers, message.dump());
}

json initializeRequest(const std::string& protocol_version) {
  return {{"jsonrpc", "2.0"},
          {"id", 0},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", protocol_version},
            {"capabilities", json::object()},
            {"clientInfo", {{"name", "gtest"}, {"version", "1"}}}}}};
}

std::string Gateway::initialize(const std::string& server, const std::string& protocol_version) {
  const json init = initializeRequest(protocol_version);
  auto r = post(server, init, "");
  if (r.status != 200) throw std::runtime_error("initialize failed: " + r.body);
  std::string sid = r.header("mcp-session-id");
  auto note = post(server, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, sid);
  if (note.status != 202) throw std::runtime_error("initialized notification: " + note.body);
  return sid;
}

json toolCall(int id, const std::string& tool, const json& arguments) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", tool}, {"arguments", arguments}}}};
}

std::string text(const json& response) { return response["result"]["content"][0]["text"]; }

json Gateway::callTool(const std::string& server, const std::string& session,
                       const std::string& tool, const json& arguments, int id) {
  auto r = post(server, toolCall(id, tool, arguments), session, "application/json");
  if (r.status != 200)
    throw std::runtime_error("tools/call failed: " + std::to_string(r.status) + " " + r.body);
  return r.json_body();
}

}  // namespace mcpgate::testing
