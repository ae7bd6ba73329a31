#pragma once

// The DLP benchmark corpus, shared by dlp_bench (Google Benchmark) and dlp_profile (one pass, for
// callgrind). Generated from a fixed seed, so runs are comparable across machines and commits.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgate::bench {

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}
  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  std::string chars(std::string_view alphabet, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(alphabet[below(alphabet.size())]);
    return s;
  }
  std::string hex(std::size_t n) { return chars("0123456789abcdef", n); }
  std::string uuid() {
    return hex(8) + "-" + hex(4) + "-4" + hex(3) + "-a" + hex(3) + "-" + hex(12);
  }
  std::string word() {
    static const char* kWords[] = {"request", "server", "config", "value",   "update",  "result",
                                   "handler", "stream", "buffer", "client",  "session", "token",
                                   "index",   "query",  "status", "message", "worker",  "timeout",
                                   "return",  "const",  "string", "vector",  "options", "path"};
    return kWords[below(std::size(kWords))];
  }

 private:
  std::mt19937_64 rng_;
};

// Source code, the most common file content agents read.
inline std::string codeChunk(Gen& g) {
  std::string s = "// " + g.word() + " " + g.word() + " for the " + g.word() + " path\n";
  s += "int " + g.word() + "_" + g.word() + "(const std::string& " + g.word() + ", int n) {\n";
  for (int i = 0; i < 6; ++i) {
    s += "  auto " + g.word() + std::to_string(i) + " = " + g.word() + "." + g.word() + "(n + " +
         std::to_string(g.below(1000)) + ");\n";
  }
  s += "  if (" + g.word() + " == nullptr) return -1;  // " + g.word() + "\n  return 0;\n}\n\n";
  return s;
}

// An API response: ids, hashes, timestamps, URLs.
inline std::string apiChunk(Gen& g) {
  nlohmann::json j = {{"id", g.uuid()},
                      {"sha", g.hex(40)},
                      {"name", g.word() + "-" + g.word()},
                      {"url", "https://api.service.test/v1/" + g.word() + "/" + g.hex(12)},
                      {"created_at", "2026-11-" + std::to_string(10 + g.below(18)) + "T12:00:00Z"},
                      {"size", g.below(100000)},
                      {"tags", {g.word(), g.word()}}};
  return j.dump(2) + ",\n";
}

// A directory listing.
inline std::string listingChunk(Gen& g) {
  return "-rw-r--r--  1 dev staff " + std::to_string(g.below(99999)) + " Nov " +
         std::to_string(1 + g.below(28)) + " 10:" + std::to_string(10 + g.below(50)) + " " +
         g.word() + "_" + g.word() + ".cc\n";
}

// Clean documents of 1 KiB to 1 MiB, mixed like tool traffic.
inline std::vector<std::string> corpus() {
  Gen g(20261120);
  std::vector<std::string> docs;
  for (const std::size_t size : {1u << 10, 4u << 10, 16u << 10, 64u << 10, 256u << 10, 1u << 20}) {
    for (int copy = 0; copy < 2; ++copy) {
      std::string d;
      while (d.size() < size) {
        switch (g.below(3)) {
          case 0:
            d += codeChunk(g);
            break;
          case 1:
            d += apiChunk(g);
            break;
          default:
            d += listingChunk(g);
            break;
        }
      }
      d.resize(size);
      docs.push_back(std::move(d));
    }
  }
  return docs;
}

inline const std::vector<std::string>& docs() {
  static const auto d = corpus();
  return d;
}

inline std::size_t corpusBytes() {
  std::size_t n = 0;
  for (const auto& d : docs()) n += d.size();
  return n;
}

// One ~500-byte tools/call request (parsed once by the gateway for routing, then scanned).
inline constexpr std::string_view kSmallToolsCall =
    R"({"jsonrpc":"2.0","id":42,"method":"tools/call",
    "params":{"name":"write_file","arguments":{"path":"/srv/data/reports/2026-11/summary.md",
    "content":"# Weekly summary\n\nBuild 8f14e45f passed on main. Latency p50 12 ms, p99 48 ms.\nRequest 9b2f1c4e-7d3a-4b8e-9f01-2c3d4e5f6a7b retried twice; see the dashboard for details.\nNext: rotate logs, update the runbook, and review the open pull requests.\n",
    "mode":"overwrite","encoding":"utf-8"},"_meta":{"progressToken":"p-7781"}}})";

}  // namespace mcpgate::bench
