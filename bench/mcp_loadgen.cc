// mcp_loadgen: native MCP load generator for the throughput comparison
// (issue 6). Each session is one MCP session over its own keep-alive HTTP
// connection (Streamable HTTP, JSON or SSE answers) or its own child process
// (stdio). It initializes, then calls tools/call echo in a closed loop or at
// a fixed rate (with --modern: no session and no initialize, each call a
// 2026-07-28 request with its envelope and headers), checks every answer
// against its request and reports latency percentiles, throughput and errors
// as one JSON object on stdout.
//
// Threads: one io_context run by --threads threads, a strand per session
// (the session's coroutine, its watchdog and the start signal touch the same
// objects). Requests are written gathered: a per-session header and id, and
// one request body shared by all sessions, so the payload is never copied
// per call.

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/json_scan.h"
#include "bench/loadgen_payload.h"

// g++ 12 misreads Asio's coroutine frame allocator in large coroutines as a
// mismatched new/delete pair (as in gateway/aggregate.cc).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

extern char** environ;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace bench = mcpgate::bench;
using asio::awaitable;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr auto kUse = asio::as_tuple(asio::use_awaitable);
constexpr std::uint64_t kBodyLimit = 64ull << 20;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr auto kCallTimeout = std::chrono::seconds(30);
constexpr auto kWatchdogTick = std::chrono::milliseconds(500);
constexpr auto kChildExitGrace = std::chrono::seconds(5);
constexpr int kMaxErrorDetails = 5;
constexpr std::size_t kMaxDetail = 300;
constexpr std::size_t kLineBuffer = 256 * 1024;
constexpr std::size_t kMinFreeSpace = 64 * 1024;
// Latency slots reserved per session in a closed loop: what 200k calls/s in
// total would need, at most 4M (32 MB) per session.
constexpr double kReserveCallsPerSecond = 200000;
constexpr std::size_t kMaxReserve = 4u << 20;

constexpr std::string_view kProtocolVersion = "2025-06-18";
constexpr std::string_view kIdPrefix = R"({"jsonrpc":"2.0","id":)";
constexpr std::string_view kInitializeSuffix =
    R"(,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
    R"("clientInfo":{"name":"mcp_loadgen","version":"1.0"}}})";
constexpr std::string_view kInitialized =
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
// --modern: the 2026-07-28 envelope every request carries in params._meta,
// and the headers that must repeat the body over HTTP.
constexpr std::string_view kModernMeta =
    R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{},)"
    R"("io.modelcontextprotocol/clientInfo":{"name":"mcp_loadgen","version":"1.0"}})";
constexpr std::string_view kModernHeaders =
    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n";

constexpr const char* kUsage =
    "usage: mcp_loadgen (--url http://HOST:PORT/PATH | --direct \"CMD [ARGS...]\")\n"
    "         [--sessions N] [--duration SEC] [--warmup SEC] [--rate CALLS_PER_S]\n"
    "         [--payload BYTES] [--secrets] [--idle SEC] [--threads T] [--print-payload]\n"
    "         [--fixed-answer] [--modern]\n"
    "  --sessions N     concurrent MCP sessions, each its own connection or child (1)\n"
    "  --duration SEC   measured time (5); --warmup SEC before it is not recorded (1)\n"
    "  --rate R         total tools/call per second, open loop; 0 = closed loop (0)\n"
    "  --payload BYTES  size of the echoed text (256)\n"
    "  --secrets        put secrets the shipped DLP rules redact into the text\n"
    "  --idle SEC       open the sessions, print 'ready' on stderr, hold them SEC\n"
    "                   seconds with no traffic, close them; report counts only\n"
    "  --threads T      threads running the io_context (1)\n"
    "  --print-payload  write the payload text to stdout and exit\n"
    "  --fixed-answer   the server answers every request with one fixed JSON-RPC\n"
    "                   result (a ceiling such as nginx serving a static answer):\n"
    "                   any result counts; ids and echoes are not checked\n"
    "  --modern         a 2026-07-28 client (with --url): no session, no initialize;\n"
    "                   each call carries the _meta envelope and the Mcp-Method and\n"
    "                   Mcp-Name headers; a \"session\" is one connection\n"
    "Prints one JSON object on stdout; exits 0 when there were no errors, 1 otherwise.\n";

struct Options {
  std::string url;
  std::vector<std::string> direct;  // argv of the stdio server
  int sessions = 1;
  double duration = 5;
  double warmup = 1;
  double rate = 0;
  std::size_t payload = 256;
  bool secrets = false;
  std::optional<double> idle;
  int threads = 1;
  bool print_payload = false;
  bool fixed_answer = false;
  bool modern = false;
};

// --- command line --------------------------------------------------------

template <class T>
bool parseNumber(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

// Splits on whitespace; single or double quotes group words.
std::vector<std::string> splitCommand(std::string_view s) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : s) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word.push_back(c);
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<Options> parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    const std::string_view value = has_value ? argv[i + 1] : "";
    bool ok = true;
    if (arg == "--secrets") {
      o.secrets = true;
      continue;
    }
    if (arg == "--print-payload") {
      o.print_payload = true;
      continue;
    }
    if (arg == "--fixed-answer") {
      o.fixed_answer = true;
      continue;
    }
    if (arg == "--modern") {
      o.modern = true;
      continue;
    }
    if (!has_value) return std::nullopt;
    ++i;
    if (arg == "--url") {
      o.url = value;
    } else if (arg == "--direct") {
      o.direct = splitCommand(value);
      ok = !o.direct.empty();
    } else if (arg == "--sessions") {
      ok = parseNumber(value, o.sessions) && o.sessions > 0;
    } else if (arg == "--duration") {
      ok = parseNumber(value, o.duration) && o.duration > 0;
    } else if (arg == "--warmup") {
      ok = parseNumber(value, o.warmup) && o.warmup >= 0;
    } else if (arg == "--rate") {
      ok = parseNumber(value, o.rate) && o.rate >= 0;
    } else if (arg == "--payload") {
      ok = parseNumber(value, o.payload) && o.payload <= (kBodyLimit / 2);
    } else if (arg == "--idle") {
      double idle = 0;
      ok = parseNumber(value, idle) && idle >= 0;
      o.idle = idle;
    } else if (arg == "--threads") {
      ok = parseNumber(value, o.threads) && o.threads > 0;
    } else {
      ok = false;
    }
    if (!ok) return std::nullopt;
  }
  if (o.print_payload) return o;
  if (o.url.empty() == o.direct.empty()) return std::nullopt;  // exactly one of them
  if (o.modern && o.url.empty()) return std::nullopt;          // a stdio server is legacy
  if (o.secrets && o.payload < bench::kMinSecretsPayload) {
    std::fprintf(stderr, "mcp_loadgen: --secrets needs --payload %zu or more\n",
                 bench::kMinSecretsPayload);
    return std::nullopt;
  }
  return o;
}

struct Url {
  std::string host;  // without brackets
  std::string port;
  std::string host_header;
  std::string target;
};

std::optional<Url> parseUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return std::nullopt;
  url.remove_prefix(kScheme.size());
  const std::size_t slash = url.find('/');
  const std::string_view authority = url.substr(0, slash);
  Url u;
  u.target = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  u.host_header = authority;
  std::string_view host = authority;
  std::string_view port = "80";
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::nullopt;
      port = authority.substr(close + 2);
    }
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || port.empty()) return std::nullopt;
  u.host = host;
  u.port = port;
  return u;
}

// --- one session ---------------------------------------------------------

enum class Step {
  kOk,
  kSoft,   // an error was counted; the transport is fine and the session goes on
  kFatal,  // an error was counted; the session stops
};

struct Reply {
  std::optional<std::string_view> id, result, error;
};

class Session;

struct Shared {
  Shared(const Options& o, const bench::Payload& p) : options(o), payload(p) {}

  const Options& options;
  const bench::Payload& payload;
  std::string call_suffix;  // everything after the id of a tools/call request
  Url url;
  tcp::endpoint endpoint;
  std::vector<std::unique_ptr<Session>> sessions;
  std::atomic<int> arrived{0};
  std::atomic<int> details_printed{0};
  Clock::time_point launched = Clock::now();
  // Written by the last session to finish its setup, before it releases the
  // others through their strands.
  Clock::time_point start, warmup_end, end;
  // Prints "measure: start" and "measure: end" on stderr at the edges of the
  // measured window, so bench/run.mjs can read the system's CPU time there.
  std::jthread marker;

  void arrive();
  [[nodiscard]] bool direct() const { return !options.direct.empty(); }
};

class Session {
 public:
  Session(Shared& shared, int index, asio::io_context& io)
      : shared_(shared),
        index_(index),
        strand_(asio::make_strand(io)),
        start_gate_(strand_),
        sleep_(strand_),
        watchdog_timer_(strand_) {
    if (!shared_.options.idle) {
      const double per_second =
          shared_.options.rate > 0 ? shared_.options.rate : kReserveCallsPerSecond;
      const double calls =
          std::ceil(shared_.options.duration * per_second / shared_.options.sessions);
      latencies_.reserve(std::min<std::size_t>(kMaxReserve, static_cast<std::size_t>(calls) + 16));
    }
  }

  void launch() {
    asio::co_spawn(strand_, watchdog(), asio::detached);
    asio::co_spawn(strand_, run(), asio::detached);
  }
  void release() {
    asio::post(strand_, [this] { start_gate_.cancel(); });
  }

  // Results, read after the io_context has stopped.
  std::vector<std::int64_t> latencies_;  // ns, recorded calls only
  std::uint64_t exact_ = 0;
  std::uint64_t redacted_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t bytes_received_ = 0;
  std::map<std::string, std::uint64_t, std::less<>> errors_;
  bool failed_ = false;
  bool ready_ = false;
  pid_t child_ = -1;

 private:
  awaitable<void> run() {
    ready_ = co_await setup();
    failed_ = !ready_;
    start_gate_.expires_at(Clock::time_point::max());
    shared_.arrive();
    co_await start_gate_.async_wait(kUse);
    if (ready_) {
      if (shared_.options.idle) {
        co_await sleepUntil(shared_.end);
      } else {
        const bool completed = co_await calls();
        failed_ = !completed;
      }
    }
    co_await finish();
    done_ = true;
    watchdog_timer_.cancel();
    closeTransport();
  }

  awaitable<void> sleepUntil(Clock::time_point t) {
    if (t <= Clock::now()) co_return;
    sleep_.expires_at(t);
    co_await sleep_.async_wait(kUse);
  }

  // A call that outlives kCallTimeout has its transport closed under it.
  awaitable<void> watchdog() {
    while (!done_) {
      watchdog_timer_.expires_after(kWatchdogTick);
      co_await watchdog_timer_.async_wait(kUse);
      if (!done_ && in_call_ && Clock::now() - call_started_ > kCallTimeout) {
        timed_out_ = true;
        closeTransport();
      }
    }
  }

  awaitable<bool> setup() {
    if (shared_.direct() && !spawnChild()) co_return false;
    if (shared_.options.modern) co_return true;  // nothing before the first call
    nextId();
    const std::array<asio::const_buffer, 3> init{
        asio::buffer(kIdPrefix), asio::buffer(id_, id_size_), asio::buffer(kInitializeSuffix)};
    const std::span<const asio::const_buffer> init_body(init);
    const Step init_step = co_await exchange(init_body, true);
    if (init_step != Step::kOk) co_return false;
    if (reply_.error || !reply_.result) {
      error("initialize", reply_.error ? *reply_.error : std::string_view("no result"));
      co_return false;
    }
    if (!shared_.direct()) {
      if (auto it = response_.find("Mcp-Session-Id"); it != response_.end())
        session_id_ = it->value();
    }
    initialized_ = true;
    const std::array<asio::const_buffer, 1> note{asio::buffer(kInitialized)};
    const std::span<const asio::const_buffer> note_body(note);
    const Step note_step = co_await exchange(note_body, false);
    co_return note_step == Step::kOk;
  }

  awaitable<bool> calls() {
    const Options& o = shared_.options;
    const bool open_loop = o.rate > 0;
    const double interval = open_loop ? o.sessions / o.rate : 0;
    const double phase = open_loop ? index_ / o.rate : 0;
    for (std::uint64_t k = 0;; ++k) {
      Clock::time_point scheduled;
      if (open_loop) {
        scheduled = shared_.start + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(phase + k * interval));
        if (scheduled >= shared_.end) break;
        co_await sleepUntil(scheduled);
      } else {
        scheduled = Clock::now();
        if (scheduled >= shared_.end) break;
      }
      const Step step = co_await call(scheduled, scheduled >= shared_.warmup_end);
      if (step == Step::kFatal) co_return false;
    }
    co_return true;
  }

  awaitable<Step> call(Clock::time_point scheduled, bool record) {
    nextId();
    const std::array<asio::const_buffer, 3> request{
        asio::buffer(kIdPrefix), asio::buffer(id_, id_size_), asio::buffer(shared_.call_suffix)};
    const std::span<const asio::const_buffer> body(request);
    const Step step = co_await exchange(body, true);
    const Clock::time_point done = Clock::now();
    if (step != Step::kOk) co_return step;
    const std::optional<bench::EchoCheck> verdict = checkReply();
    if (!verdict) co_return Step::kSoft;
    if (record) {
      latencies_.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(done - scheduled).count());
      (*verdict == bench::EchoCheck::kExact ? exact_ : redacted_)++;
      bytes_sent_ += sent_;
      bytes_received_ += received_;
    }
    co_return Step::kOk;
  }

  // The verdict on the echo in reply_, or nullopt after counting an error.
  std::optional<bench::EchoCheck> checkReply() {
    if (reply_.error) {
      error("jsonrpc_error", *reply_.error);
      return std::nullopt;
    }
    if (shared_.options.fixed_answer && reply_.result) return bench::EchoCheck::kExact;
    std::optional<std::string_view> text;
    if (reply_.result) {
      if (auto content = bench::member(*reply_.result, "content")) {
        if (auto first = bench::firstElement(*content)) {
          if (auto raw = bench::member(*first, "text")) text = bench::stringContent(*raw);
        }
      }
    }
    if (!text) {
      error("bad_response", reply_.result ? *reply_.result : std::string_view("no result"));
      return std::nullopt;
    }
    const bench::EchoCheck verdict = bench::checkEcho(shared_.payload, *text);
    switch (verdict) {
      case bench::EchoCheck::kExact:
      case bench::EchoCheck::kRedacted:
        return verdict;
      case bench::EchoCheck::kSecretLeaked:
        error("secret_leaked", *text);
        return std::nullopt;
      case bench::EchoCheck::kMismatch:
        break;
    }
    error("mismatch", describeMismatch(*text));
    return std::nullopt;
  }

  std::string describeMismatch(std::string_view text) const {
    const std::string_view want = shared_.payload.text;
    const auto [got_at, want_at] =
        std::mismatch(text.begin(), text.end(), want.begin(), want.end());
    const auto at = static_cast<std::size_t>(got_at - text.begin());
    const std::size_t from = at < 20 ? 0 : at - 20;
    return "text of " + std::to_string(text.size()) + " bytes for " + std::to_string(want.size()) +
           " sent differs at byte " + std::to_string(at) + ": got \"" +
           std::string(text.substr(from, 60)) + "\", sent \"" + std::string(want.substr(from, 60)) +
           "\"";
  }

  awaitable<Step> exchange(std::span<const asio::const_buffer> body, bool expect_answer) {
    in_call_ = true;
    call_started_ = Clock::now();
    reply_ = {};
    Step step = Step::kOk;
    if (shared_.direct()) {
      step = co_await directExchange(body, expect_answer);
    } else {
      step = co_await httpExchange(body, expect_answer);
    }
    in_call_ = false;
    co_return step;
  }

  // --- HTTP ---

  awaitable<Step> connect() {
    socket_.emplace(strand_);
    auto [ec] = co_await socket_->async_connect(shared_.endpoint, kUse);
    if (ec) co_return ioError("connect", ec);
    beast::error_code ignored;
    socket_->set_option(tcp::no_delay(true), ignored);
    buffer_.clear();
    // Beast reads at most the buffer's free capacity (512 bytes when empty):
    // without this a 64 KiB body takes 128 recv calls.
    buffer_.reserve(kReadChunk);
    co_return Step::kOk;
  }

  void appendSessionHeaders() {
    if (shared_.options.modern) {
      header_ += kModernHeaders;
      return;
    }
    if (!session_id_.empty()) {
      header_ += "Mcp-Session-Id: ";
      header_ += session_id_;
      header_ += "\r\n";
    }
    if (initialized_) {
      header_ += "MCP-Protocol-Version: ";
      header_ += kProtocolVersion;
      header_ += "\r\n";
    }
  }

  // Writes header_ and body, reads the response into response_.
  awaitable<Step> roundTrip(std::span<const asio::const_buffer> body) {
    if (!socket_ || !socket_->is_open()) {
      const Step step = co_await connect();
      if (step != Step::kOk) co_return step;
    }
    std::array<asio::const_buffer, 4> buffers{asio::buffer(header_)};
    std::size_t count = 1;
    for (const asio::const_buffer& b : body) buffers[count++] = b;
    const std::span<const asio::const_buffer> all(buffers.data(), count);
    auto [write_ec, written] = co_await asio::async_write(*socket_, all, kUse);
    if (write_ec) co_return ioError("write", write_ec);
    sent_ = written;

    response_.clear();
    response_.body().clear();
    http::response_parser<http::string_body> parser(std::move(response_));
    parser.body_limit(kBodyLimit);
    auto [read_ec, read] = co_await http::async_read(*socket_, buffer_, parser, kUse);
    response_ = parser.release();
    if (read_ec) co_return ioError("read", read_ec);
    received_ = read;
    if (!response_.keep_alive()) closeTransport();  // the next request reconnects
    co_return Step::kOk;
  }

  awaitable<Step> httpExchange(std::span<const asio::const_buffer> body, bool expect_answer) {
    const std::size_t length = asio::buffer_size(body);
    header_.clear();
    header_ += "POST ";
    header_ += shared_.url.target;
    header_ += " HTTP/1.1\r\nHost: ";
    header_ += shared_.url.host_header;
    header_ +=
        "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    appendSessionHeaders();
    header_ += "Content-Length: ";
    char digits[24];
    header_.append(digits, std::to_chars(digits, digits + sizeof digits, length).ptr);
    header_ += "\r\n\r\n";
    const Step step = co_await roundTrip(body);
    if (step != Step::kOk) co_return step;

    const unsigned status = response_.result_int();
    if (!expect_answer) {
      if (status == 202 || status == 200) co_return Step::kOk;
      co_return httpError(status);
    }
    if (status != 200) co_return httpError(status);
    const std::string_view type = response_[http::field::content_type];
    const std::string_view payload = response_.body();
    std::optional<std::string_view> json;
    if (type.starts_with("text/event-stream")) {
      json = findInEventStream(payload);
    } else if (scanReply(payload) && reply_.id) {
      json = payload;
    }
    if (!json) {
      error("bad_response", payload);
      co_return Step::kSoft;
    }
    if (!shared_.options.fixed_answer &&
        (!reply_.id || *reply_.id != std::string_view(id_, id_size_))) {
      error("id_mismatch", *json);
      co_return Step::kSoft;
    }
    co_return Step::kOk;
  }

  Step httpError(unsigned status) {
    std::string detail = std::to_string(status) + " ";
    detail += std::string_view(response_.body()).substr(0, kMaxDetail);
    error("http_status", detail);
    return Step::kSoft;
  }

  // The data of the event that answers our request (our id, no method);
  // other events (notifications, server requests) are skipped.
  std::optional<std::string_view> findInEventStream(std::string_view stream) {
    std::size_t pos = 0;
    std::size_t data_lines = 0;
    std::string_view data;
    const auto dispatch = [&]() -> bool {
      const bool mine = data_lines > 0 && scanReply(data) && reply_.id &&
                        *reply_.id == std::string_view(id_, id_size_) && !method_;
      data_lines = 0;
      return mine;
    };
    while (pos < stream.size()) {
      std::size_t eol = stream.find('\n', pos);
      if (eol == std::string_view::npos) eol = stream.size();
      std::string_view line = stream.substr(pos, eol - pos);
      pos = eol + 1;
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line.empty()) {
        if (dispatch()) return data;
        continue;
      }
      if (!line.starts_with("data:")) continue;  // event:, id:, retry:, comments
      line.remove_prefix(5);
      if (line.starts_with(' ')) line.remove_prefix(1);
      if (data_lines == 0) {
        data = line;
      } else {
        if (data_lines == 1) event_data_.assign(data);
        event_data_ += '\n';
        event_data_ += line;
        data = event_data_;
      }
      ++data_lines;
    }
    if (dispatch()) return data;
    reply_ = {};
    return std::nullopt;
  }

  // Fills reply_ (and method_) from one JSON-RPC message; false if it is not a JSON object.
  bool scanReply(std::string_view json) {
    reply_ = {};
    method_ = false;
    const std::size_t end =
        bench::forEachMember(json, 0, [this](std::string_view key, std::string_view value) {
          if (key == "id") {
            reply_.id = value;
          } else if (key == "result") {
            reply_.result = value;
          } else if (key == "error") {
            reply_.error = value;
          } else if (key == "method") {
            method_ = true;
          }
          return true;
        });
    return end != bench::kBad;
  }

  // --- stdio ---

  bool spawnChild() {
    std::array<int, 2> to_child{-1, -1};
    std::array<int, 2> from_child{-1, -1};
    if (::pipe2(to_child.data(), O_CLOEXEC) != 0 || ::pipe2(from_child.data(), O_CLOEXEC) != 0) {
      error("spawn", std::string("pipe2: ") + std::strerror(errno));
      for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) {
        if (fd >= 0) ::close(fd);
      }
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    // We ignore SIGPIPE; the child gets the default back.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    for (const std::string& a : shared_.options.direct)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = ::posix_spawnp(&child_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    if (rc != 0) {
      child_ = -1;
      ::close(to_child[1]);
      ::close(from_child[0]);
      error("spawn", shared_.options.direct[0] + ": " + std::strerror(rc));
      return false;
    }
    child_in_.emplace(strand_, to_child[1]);
    child_out_.emplace(strand_, from_child[0]);
    lines_.resize(kLineBuffer);
    return true;
  }

  awaitable<Step> directExchange(std::span<const asio::const_buffer> body, bool expect_answer) {
    if (!child_in_ || !child_in_->is_open())
      co_return ioError("write", asio::error::bad_descriptor);
    std::array<asio::const_buffer, 4> buffers{};
    std::size_t count = 0;
    for (const asio::const_buffer& b : body) buffers[count++] = b;
    buffers[count++] = asio::buffer("\n", 1);
    const std::span<const asio::const_buffer> all(buffers.data(), count);
    auto [write_ec, written] = co_await asio::async_write(*child_in_, all, kUse);
    if (write_ec) co_return ioError("write", write_ec);
    sent_ = written;
    if (!expect_answer) co_return Step::kOk;
    for (;;) {
      const std::optional<std::string_view> line = co_await readLine();
      if (!line) co_return ioError("read", read_error_);
      if (line->find_first_not_of(" \t") == std::string_view::npos) continue;
      if (!scanReply(*line)) {
        error("bad_response", *line);
        co_return Step::kFatal;  // the stream is out of step with our requests
      }
      if (method_ || !reply_.id) continue;  // a request or notification from the server
      if (*reply_.id != std::string_view(id_, id_size_)) {
        error("id_mismatch", *line);
        co_return Step::kFatal;
      }
      received_ = line->size() + 1;
      co_return Step::kOk;
    }
  }

  // The next line from the child's stdout (without '\n'), valid until the next call.
  awaitable<std::optional<std::string_view>> readLine() {
    begin_ = next_;  // drop the previous line
    for (;;) {
      if (const void* nl = std::memchr(lines_.data() + scanned_, '\n', end_ - scanned_)) {
        const auto pos = static_cast<std::size_t>(static_cast<const char*>(nl) - lines_.data());
        std::string_view line(lines_.data() + begin_, pos - begin_);
        next_ = scanned_ = pos + 1;
        if (line.ends_with('\r')) line.remove_suffix(1);
        co_return line;
      }
      scanned_ = end_;
      if (lines_.size() - end_ < kMinFreeSpace) {
        std::memmove(lines_.data(), lines_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        scanned_ -= begin_;
        next_ = begin_ = 0;
        if (lines_.size() - end_ < kMinFreeSpace) lines_.resize(lines_.size() * 2);
      }
      const asio::mutable_buffer free_space(lines_.data() + end_, lines_.size() - end_);
      auto [ec, n] = co_await child_out_->async_read_some(free_space, kUse);
      if (ec) {
        read_error_ = ec;
        co_return std::nullopt;
      }
      end_ += n;
    }
  }

  // --- the end ---

  awaitable<void> finish() {
    if (shared_.direct()) {
      // EOF on stdin asks the server to exit; main reaps it.
      closeTransport();
      co_return;
    }
    if (session_id_.empty()) co_return;
    // After --idle the server may have closed the idle connection: one retry
    // on a new one. A session that already failed cleans up without counting.
    const bool count_errors = ready_ && !failed_;
    for (int attempt = 0; attempt < 2; ++attempt) {
      header_.clear();
      header_ += "DELETE ";
      header_ += shared_.url.target;
      header_ += " HTTP/1.1\r\nHost: ";
      header_ += shared_.url.host_header;
      header_ += "\r\n";
      appendSessionHeaders();
      header_ += "\r\n";
      quiet_ = attempt == 0 || !count_errors;
      in_call_ = true;
      call_started_ = Clock::now();
      const std::span<const asio::const_buffer> none;
      const Step step = co_await roundTrip(none);
      in_call_ = false;
      quiet_ = false;
      if (step == Step::kOk) {
        const unsigned status = response_.result_int();
        // 405: the server does not let clients end sessions, which the spec allows.
        if (count_errors && status / 100 != 2 && status != 405) httpError(status);
        co_return;
      }
      if (attempt == 0 || !count_errors) undoLastError();
      if (!count_errors) co_return;
    }
  }

  void closeTransport() {
    beast::error_code ignored;
    if (socket_ && socket_->is_open()) {
      socket_->shutdown(tcp::socket::shutdown_both, ignored);
      socket_->close(ignored);
    }
    if (child_in_ && child_in_->is_open()) child_in_->close(ignored);
    if (child_out_ && child_out_->is_open()) child_out_->close(ignored);
  }

  // --- bookkeeping ---

  void nextId() {
    id_size_ = static_cast<std::size_t>(std::to_chars(id_, id_ + sizeof id_, next_id_++).ptr - id_);
  }

  Step ioError(std::string_view what, beast::error_code ec) {
    if (timed_out_) {
      error("timeout", std::string(what) + " after " + std::to_string(kCallTimeout.count()) + " s");
    } else {
      error(what == "connect" ? "connect" : "io", std::string(what) + ": " + ec.message());
    }
    closeTransport();
    return Step::kFatal;
  }

  void error(std::string_view kind, std::string_view detail) {
    auto it = errors_.find(kind);
    if (it == errors_.end()) it = errors_.emplace(std::string(kind), 0).first;
    ++it->second;
    last_error_ = it;
    if (!quiet_ && shared_.details_printed.fetch_add(1) < kMaxErrorDetails) {
      std::string shown(detail.substr(0, kMaxDetail));
      std::replace_if(
          shown.begin(), shown.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      std::fprintf(stderr, "mcp_loadgen: session %d: %.*s: %s%s\n", index_,
                   static_cast<int>(kind.size()), kind.data(), shown.c_str(),
                   detail.size() > shown.size() ? "..." : "");
    }
  }

  void undoLastError() {
    if (last_error_ != errors_.end() && --last_error_->second == 0) errors_.erase(last_error_);
    last_error_ = errors_.end();
  }

  Shared& shared_;
  const int index_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer start_gate_;
  asio::steady_timer sleep_;
  asio::steady_timer watchdog_timer_;

  // Call state.
  std::uint64_t next_id_ = 1;
  char id_[24] = {};
  std::size_t id_size_ = 0;
  Reply reply_;
  bool method_ = false;
  bool initialized_ = false;
  bool in_call_ = false;
  bool timed_out_ = false;
  bool done_ = false;
  bool quiet_ = false;  // count errors but do not print them
  Clock::time_point call_started_;
  std::size_t sent_ = 0;
  std::size_t received_ = 0;
  std::map<std::string, std::uint64_t, std::less<>>::iterator last_error_ = errors_.end();

  // HTTP.
  std::optional<tcp::socket> socket_;
  beast::flat_buffer buffer_;
  http::response<http::string_body> response_;
  std::string header_;
  std::string session_id_;
  std::string event_data_;

  // stdio.
  std::optional<asio::posix::stream_descriptor> child_in_, child_out_;
  std::string lines_;
  std::size_t begin_ = 0, next_ = 0, scanned_ = 0, end_ = 0;
  beast::error_code read_error_;
};

void Shared::arrive() {
  if (arrived.fetch_add(1) + 1 != static_cast<int>(sessions.size())) return;
  start = Clock::now();
  if (options.idle) {
    warmup_end = start;
    end = start +
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*options.idle));
    std::fputs("ready\n", stderr);
    std::fflush(stderr);
  } else {
    warmup_end = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(options.warmup));
    end = warmup_end + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(options.duration));
    marker = std::jthread([this] {
      std::this_thread::sleep_until(warmup_end);
      std::fputs("measure: start\n", stderr);
      std::fflush(stderr);
      std::this_thread::sleep_until(end);
      std::fputs("measure: end\n", stderr);
      std::fflush(stderr);
    });
  }
  for (auto& s : sessions) s->release();
}

// --- main ----------------------------------------------------------------

void raiseDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

double cpuSeconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  const auto s = [](timeval t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// Waits for a child, killing it if it has not exited kChildExitGrace after
// its stdin closed. Returns false if it did not exit 0 by itself.
bool reap(pid_t pid, Clock::time_point deadline) {
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (r < 0 && errno != EINTR) return false;
    if (Clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string formatDouble(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Options> parsed = parseOptions(argc, argv);
  if (!parsed) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const Options& options = *parsed;
  const bench::Payload payload = bench::makePayload(options.payload, options.secrets);
  if (options.print_payload) {
    std::fwrite(payload.text.data(), 1, payload.text.size(), stdout);
    return 0;
  }
  std::signal(SIGPIPE, SIG_IGN);
  raiseDescriptorLimit();

  asio::io_context io(options.threads);  // outlives the sessions and their strands
  Shared shared(options, payload);
  shared.call_suffix = R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":")";
  shared.call_suffix += payload.text;
  shared.call_suffix += "\"}";
  if (options.modern) shared.call_suffix += kModernMeta;
  shared.call_suffix += "}}";

  if (!shared.direct()) {
    std::optional<Url> url = parseUrl(options.url);
    if (!url) {
      std::fprintf(stderr, "mcp_loadgen: --url must be http://HOST[:PORT][/PATH]\n%s", kUsage);
      return 2;
    }
    shared.url = std::move(*url);
    asio::io_context resolver_io;
    tcp::resolver resolver(resolver_io);
    beast::error_code ec;
    const auto results = resolver.resolve(shared.url.host, shared.url.port, ec);
    if (ec || results.empty()) {
      std::fprintf(stderr, "mcp_loadgen: cannot resolve %s:%s: %s\n", shared.url.host.c_str(),
                   shared.url.port.c_str(), ec.message().c_str());
      return 1;
    }
    shared.endpoint = *results.begin();
  }

  for (int i = 0; i < options.sessions; ++i)
    shared.sessions.push_back(std::make_unique<Session>(shared, i, io));
  for (auto& s : shared.sessions) s->launch();
  {
    std::vector<std::jthread> threads;
    for (int i = 1; i < options.threads; ++i) threads.emplace_back([&io] { io.run(); });
    io.run();
  }

  // Merge.
  std::vector<std::int64_t> latencies;
  std::map<std::string, std::uint64_t, std::less<>> error_kinds;
  std::uint64_t exact = 0, redacted = 0, bytes_sent = 0, bytes_received = 0;
  int failed = 0, ready = 0;
  std::size_t total = 0;
  for (auto& s : shared.sessions) total += s->latencies_.size();
  latencies.reserve(total);
  const Clock::time_point reap_deadline = Clock::now() + kChildExitGrace;
  for (auto& s : shared.sessions) {
    latencies.insert(latencies.end(), s->latencies_.begin(), s->latencies_.end());
    for (const auto& [kind, n] : s->errors_) error_kinds[kind] += n;
    exact += s->exact_;
    redacted += s->redacted_;
    bytes_sent += s->bytes_sent_;
    bytes_received += s->bytes_received_;
    failed += s->failed_ ? 1 : 0;
    ready += s->ready_ ? 1 : 0;
    if (s->child_ > 0 && !reap(s->child_, reap_deadline)) ++error_kinds["child_exit"];
  }
  std::uint64_t errors = 0;
  for (const auto& [kind, n] : error_kinds) errors += n;
  const double setup_s = std::chrono::duration<double>(shared.start - shared.launched).count();

  std::string out = "{\"mode\":\"";
  out += shared.direct() ? "direct" : "http";
  out += "\",\"sessions\":" + std::to_string(options.sessions);
  out += ",\"threads\":" + std::to_string(options.threads);
  if (options.idle) {
    out += ",\"idle_s\":" + formatDouble(*options.idle, 3);
  } else {
    out += ",\"payload\":" + std::to_string(options.payload);
    out += std::string(",\"secrets\":") + (options.secrets ? "true" : "false");
    out += ",\"rate\":" + formatDouble(options.rate, 1);
    out += ",\"duration_s\":" + formatDouble(options.duration, 3);
    out += ",\"warmup_s\":" + formatDouble(options.warmup, 3);
  }
  out += ",\"ready_sessions\":" + std::to_string(ready);
  out += ",\"setup_s\":" + formatDouble(setup_s, 3);
  if (!options.idle) {
    out += ",\"calls\":" + std::to_string(latencies.size());
    out += ",\"calls_per_s\":" +
           formatDouble(static_cast<double>(latencies.size()) / options.duration, 1);
  }
  out += ",\"errors\":" + std::to_string(errors);
  out += ",\"error_kinds\":{";
  bool first = true;
  for (const auto& [kind, n] : error_kinds) {
    out += (first ? "\"" : ",\"") + kind + "\":" + std::to_string(n);
    first = false;
  }
  out += "}";
  out += ",\"failed_sessions\":" + std::to_string(failed);
  double p50 = 0, p99 = 0;
  if (!options.idle) {
    out += ",\"exact\":" + std::to_string(exact);
    out += ",\"redacted\":" + std::to_string(redacted);
    std::sort(latencies.begin(), latencies.end());
    // Nearest rank: the smallest latency at or above the q-th fraction of calls.
    const auto percentile = [&](double q) -> double {
      if (latencies.empty()) return 0;
      const auto rank =
          static_cast<std::size_t>(std::ceil(q * static_cast<double>(latencies.size())));
      return static_cast<double>(
                 latencies[std::clamp<std::size_t>(rank, 1, latencies.size()) - 1]) /
             1000;
    };
    double sum = 0;
    for (const std::int64_t l : latencies) sum += static_cast<double>(l);
    const double mean = latencies.empty() ? 0 : sum / static_cast<double>(latencies.size()) / 1000;
    p50 = percentile(0.50);
    p99 = percentile(0.99);
    out += ",\"latency_us\":{\"p50\":" + formatDouble(p50, 1) +
           ",\"p90\":" + formatDouble(percentile(0.90), 1) + ",\"p99\":" + formatDouble(p99, 1) +
           ",\"p999\":" + formatDouble(percentile(0.999), 1) + ",\"max\":" +
           formatDouble(latencies.empty() ? 0 : static_cast<double>(latencies.back()) / 1000, 1) +
           ",\"mean\":" + formatDouble(mean, 1) + "}";
  }
  out += ",\"loadgen_cpu_s\":" + formatDouble(cpuSeconds(RUSAGE_SELF), 3);
  out += ",\"children_cpu_s\":" + formatDouble(cpuSeconds(RUSAGE_CHILDREN), 3);
  if (!options.idle) {
    out += ",\"bytes_sent\":" + std::to_string(bytes_sent);
    out += ",\"bytes_received\":" + std::to_string(bytes_received);
  }
  out += "}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);

  if (options.idle) {
    std::fprintf(stderr, "mcp_loadgen: %s, %d of %d sessions ready in %.2f s, %llu errors\n",
                 shared.direct() ? "direct" : "http", ready, options.sessions, setup_s,
                 static_cast<unsigned long long>(errors));
  } else {
    std::fprintf(stderr,
                 "mcp_loadgen: %s, %d sessions, %zu calls (%.0f/s), p50 %.0f us, p99 %.0f us, "
                 "%llu errors, %d failed sessions\n",
                 shared.direct() ? "direct" : "http", options.sessions, latencies.size(),
                 static_cast<double>(latencies.size()) / options.duration, p50, p99,
                 static_cast<unsigned long long>(errors), failed);
  }
  return errors == 0 && failed == 0 ? 0 : 1;
}
