// DLP engine throughput and latency (figures in bench/RESULTS.md).
//
//   full pack on clean traffic .... BM_ShippedPack/*        (bytes/s: the whole pipeline)
//   same rules through RE2::Set ... BM_Re2SetBaseline/*     (bytes/s)
//   rule-count scaling ............ BM_RuleScaling/{10,100,1000}
//   one small tools/call message .. BM_SmallToolsCall       (time per message)
//
// The corpus is generated from a fixed seed, so runs are comparable across machines and commits.

#include <benchmark/benchmark.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench/dlp_corpus.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"

namespace {

using mcpgate::bench::corpusBytes;
using mcpgate::bench::docs;
using mcpgate::bench::Gen;
using mcpgate::dlp::Direction;
using mcpgate::dlp::Policy;
using mcpgate::dlp::Rule;
using mcpgate::dlp::RuleSet;
using mcpgate::dlp::Scanner;

std::shared_ptr<const RuleSet> load(const std::filesystem::path& sub) {
  const std::vector<std::filesystem::path> paths = {std::filesystem::path(MCPGATE_SOURCE_DIR) /
                                                    sub};
  auto r = RuleSet::load(paths);
  if (!r) {
    std::cerr << r.error().message << "\n";
    std::abort();
  }
  return *r;
}

std::shared_ptr<const RuleSet> shipped() {
  static const auto rules = load("rules");
  return rules;
}

Policy everyRule() {
  Policy p;
  p.all_directions = true;
  return p;
}

// arg 0: the whole pipeline (Hyperscan + RE2 confirm + normalize + decode);
// arg 1: matching only (no normalization or decoding): the engine's own cost;
// arg 2: matching only, secret packs only (rules/secrets: rules led by a provider prefix).
void BM_ShippedPack(benchmark::State& state) {
  static const auto secrets = load("rules/secrets");
  const Scanner s(state.range(0) == 2 ? secrets : shipped());
  Policy p = everyRule();
  if (state.range(0) >= 1) {
    p.normalize = false;
    p.decode = false;
  }
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const auto& d : docs()) findings += s.scanText(d, Direction::kResponse, p).items.size();
  }
  if (findings != 0) state.SkipWithError("clean corpus produced findings");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * corpusBytes()));
  state.counters["rules"] = static_cast<double>(s.rules()->size());
}
BENCHMARK(BM_ShippedPack)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// The baseline a loop-of-regexes gateway would improve to at best: every shipped pattern in one
// RE2::Set (one DFA), reporting which patterns match each document.
void BM_Re2SetBaseline(benchmark::State& state) {
  re2::RE2::Options o;
  o.set_encoding(re2::RE2::Options::EncodingLatin1);
  o.set_max_mem(std::int64_t{2} << 30);
  o.set_log_errors(false);
  re2::RE2::Set caseful(o, re2::RE2::UNANCHORED);
  o.set_case_sensitive(false);
  re2::RE2::Set caseless(o, re2::RE2::UNANCHORED);
  for (const auto& r : shipped()->rules()) {
    std::string err;
    (r.caseless ? caseless : caseful).Add(r.pattern, &err);
  }
  if (!caseful.Compile() || !caseless.Compile()) {
    state.SkipWithError("RE2::Set compile failed");
    return;
  }
  std::vector<int> hits;
  std::size_t matched = 0;
  for (auto _ : state) {
    for (const auto& d : docs()) {
      re2::RE2::Set::ErrorInfo info;
      matched += caseful.Match(d, &hits, &info) ? hits.size() : 0;
      if (info.kind != re2::RE2::Set::kNoError) state.SkipWithError("RE2::Set DFA out of memory");
      matched += caseless.Match(d, &hits, &info) ? hits.size() : 0;
    }
  }
  benchmark::DoNotOptimize(matched);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * corpusBytes()));
}
BENCHMARK(BM_Re2SetBaseline)->Unit(benchmark::kMillisecond);

// N synthetic prefixed-token rules (the shape of most provider rules), each with its own prefix.
std::shared_ptr<const RuleSet> syntheticRules(std::size_t n) {
  Gen g(n);
  std::vector<Rule> rules;
  for (std::size_t i = 0; i < n; ++i) {
    Rule r;
    r.id = "synthetic-" + std::to_string(i);
    r.file = "synthetic";
    const std::string prefix = g.chars("abcdefghijklmnopqrstuvwxyz", 3) + std::to_string(i) + "_";
    r.pattern = "(?:^|[^A-Za-z0-9_-])(" + prefix + "[A-Za-z0-9]{" + std::to_string(20 + i % 30) +
                "})(?:[^A-Za-z0-9_-]|$)";
    r.secret_group = 1;
    rules.push_back(std::move(r));
  }
  auto set = RuleSet::fromRules(std::move(rules));
  if (!set) {
    std::cerr << set.error().message << "\n";
    std::abort();
  }
  return *set;
}

void BM_RuleScaling(benchmark::State& state) {
  const Scanner s(syntheticRules(static_cast<std::size_t>(state.range(0))));
  Policy p = everyRule();
  p.normalize = false;
  p.decode = false;
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const auto& d : docs()) findings += s.scanText(d, Direction::kRequest, p).items.size();
  }
  benchmark::DoNotOptimize(findings);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * corpusBytes()));
}
BENCHMARK(BM_RuleScaling)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// One ~500-byte tools/call request, already parsed (the gateway parses once for routing).
void BM_SmallToolsCall(benchmark::State& state) {
  const Scanner s(shipped());
  const auto msg = nlohmann::json::parse(mcpgate::bench::kSmallToolsCall);
  const std::size_t bytes = msg.dump().size();
  Policy p;  // the gateway's default: normalization and decoding on
  std::size_t findings = 0;
  for (auto _ : state) findings += s.scan(msg, Direction::kRequest, p).items.size();
  if (findings != 0) state.SkipWithError("clean message produced findings");
  state.counters["message_bytes"] = static_cast<double>(bytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_SmallToolsCall);

}  // namespace

BENCHMARK_MAIN();
