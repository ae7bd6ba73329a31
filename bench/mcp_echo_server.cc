// mcp_echo_server: a stdio MCP server with one tool, echo, for throughput
// benchmarks. Newline-delimited JSON-RPC on stdin, answers on stdout. Reads
// in large blocks and writes every answer of one read in one write, so the
// server costs little next to what it is compared through.

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "bench/echo_logic.h"

namespace {

constexpr std::size_t kInitialBuffer = 256 * 1024;
constexpr std::size_t kMinFreeSpace = 64 * 1024;

bool writeAll(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void answerLine(std::string_view line, std::string& out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t") == std::string_view::npos) return;
  if (mcpgate::bench::appendAnswer(line, out).answered) out.push_back('\n');
}

}  // namespace

int main() {
  // A client that goes away shows up as EPIPE from write, not a signal.
  std::signal(SIGPIPE, SIG_IGN);

  std::string in(kInitialBuffer, '\0');
  std::size_t begin = 0;    // start of the first incomplete line
  std::size_t scanned = 0;  // bytes before this hold no newline after `begin`
  std::size_t end = 0;      // end of the data read
  std::string out;
  out.reserve(kInitialBuffer);

  for (;;) {
    if (in.size() - end < kMinFreeSpace) {
      if (begin > 0) {
        std::memmove(in.data(), in.data() + begin, end - begin);
        end -= begin;
        scanned -= begin;
        begin = 0;
      }
      if (in.size() - end < kMinFreeSpace) in.resize(in.size() * 2);
    }
    const ssize_t n = ::read(STDIN_FILENO, in.data() + end, in.size() - end);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "mcp_echo_server: read: %s\n", std::strerror(errno));
      return 1;
    }
    if (n == 0) break;
    end += static_cast<std::size_t>(n);

    while (scanned < end) {
      const void* nl = std::memchr(in.data() + scanned, '\n', end - scanned);
      if (nl == nullptr) {
        scanned = end;
        break;
      }
      const auto pos = static_cast<std::size_t>(static_cast<const char*>(nl) - in.data());
      answerLine(std::string_view(in.data() + begin, pos - begin), out);
      begin = scanned = pos + 1;
    }
    if (begin == end) begin = scanned = end = 0;
    if (!out.empty()) {
      if (!writeAll(out)) return 1;
      out.clear();
    }
  }
  // A last message without its newline still gets an answer.
  answerLine(std::string_view(in.data() + begin, end - begin), out);
  if (!out.empty() && !writeAll(out)) return 1;
  return 0;
}
