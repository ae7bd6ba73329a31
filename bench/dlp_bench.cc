// DLP engine throughput and latency (figures in bench/RESULTS.md).
//
//   full pack on clean traffic .... BM_ShippedPack/*        (bytes/s: the whole pipeline)
//   same rules through RE2::Set ... BM_Re2SetBaseline       (bytes/s; Set + per-rule confirm)
//   rule-count scaling ............ BM_RuleScaling/{10,100,1000}
//   one small tools/call message .. BM_SmallToolsCall       (time per message)
//   loading the pack from its cache BM_WarmLoad             (CPU time per load)
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
#include <span>
#include <string>
#include <vector>

#include "bench/dlp_corpus.h"
#include "dlp/hs_util.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"
#include "dlp/validators.h"

namespace {

using mcpgate::bench::corpusBytes;
using mcpgate::bench::docs;
using mcpgate::bench::Gen;
using mcpgate::dlp::Direction;
using mcpgate::dlp::Policy;
using mcpgate::dlp::Rule;
using mcpgate::dlp::RuleSet;
using mcpgate::dlp::Scanner;
using mcpgate::dlp::ValidatorKind;

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

// A warm start's rule loading (`mcpgate scan`, `serve`, a reload) without the process's own
// start: the shipped packs from a filled cache (hashing the rule files for the key, the parsed
// rules, mapping and checking the three databases). The first load fills the cache.
void BM_WarmLoad(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mcpgate-bench-cache-" + std::to_string(std::random_device{}()));
  const std::vector<std::filesystem::path> paths = {std::filesystem::path(MCPGATE_SOURCE_DIR) /
                                                    "rules"};
  const mcpgate::dlp::LoadOptions options{dir};
  if (!RuleSet::load(paths, options)) state.SkipWithError("cannot load the shipped rules");
  for (auto _ : state) {
    auto set = RuleSet::load(paths, options);
    if (!set || !(*set)->fromCache()) {
      state.SkipWithError("warm load did not come from the cache");
      break;
    }
    benchmark::DoNotOptimize(set);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WarmLoad)->Unit(benchmark::kMillisecond);

// The best a regex gateway gets from RE2, over the same rules and corpus and with the same
// confirmation: all shipped patterns in RE2::Sets (one lazy DFA per flag set; RE2 has nothing
// faster for many patterns) say which patterns occur in a document; each of those then runs
// alone to find every span, and its secret group goes through the rule's length limits and
// validator, as the Hyperscan pipeline confirms its candidates. Like BM_ShippedPack/1 it does
// not normalize or decode. Keywords, stopwords and excludes are not applied (on this clean
// corpus they would only drop candidates the validator already dropped).
class Re2Baseline {
 public:
  explicit Re2Baseline(const RuleSet& rs) : rules_(rs.rules()) {
    re2::RE2::Options o;
    o.set_encoding(re2::RE2::Options::EncodingLatin1);
    o.set_max_mem(std::int64_t{2} << 30);
    o.set_log_errors(false);
    for (int caseless = 0; caseless < 2; ++caseless) {
      o.set_case_sensitive(caseless == 0);
      sets_.emplace_back(std::make_unique<re2::RE2::Set>(o, re2::RE2::UNANCHORED));
      ids_.emplace_back();
    }
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      const Rule& r = rules_[i];
      const int k = r.caseless ? 1 : 0;
      std::string err;
      if (sets_[k]->Add(mcpgate::dlp::re2Pattern(r), &err) < 0) continue;
      ids_[k].push_back(i);
    }
    ok_ = sets_[0]->Compile() && sets_[1]->Compile();
    for (const auto& r : rules_) singles_.push_back(mcpgate::dlp::compileRe2(r));
  }

  [[nodiscard]] bool ok() const { return ok_; }

  // Confirmed findings in `doc`; false if a DFA ran out of memory.
  bool scan(std::string_view doc, std::size_t& findings) {
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      re2::RE2::Set::ErrorInfo info;
      hits_.clear();
      if (!sets_[k]->Match(doc, &hits_, &info)) {
        if (info.kind != re2::RE2::Set::kNoError) return false;
        continue;
      }
      for (const int h : hits_) findings += confirm(ids_[k][static_cast<std::size_t>(h)], doc);
    }
    return true;
  }

 private:
  std::size_t confirm(std::size_t index, std::string_view doc) const {
    const Rule& r = rules_[index];
    const re2::RE2& re = *singles_[index];
    const int ngroups = std::min(r.secret_group + 1, 10);
    re2::StringPiece g[10];
    std::size_t found = 0;
    for (std::size_t lo = 0;
         lo < doc.size() && re.Match(doc, lo, doc.size(), re2::RE2::UNANCHORED, g, ngroups);) {
      const auto end = static_cast<std::size_t>(g[0].data() - doc.data()) + g[0].size();
      const re2::StringPiece secret = g[ngroups - 1];
      const std::string_view sv(secret.data(), secret.size());
      bool ok = secret.data() != nullptr && sv.size() >= r.min_length &&
                (r.max_length == 0 || sv.size() <= r.max_length);
      if (ok && r.validator == ValidatorKind::kLuhn) ok = mcpgate::dlp::luhnValid(sv);
      if (ok && r.validator == ValidatorKind::kIban) ok = mcpgate::dlp::ibanValid(sv);
      if (ok && r.validator == ValidatorKind::kEntropy) {
        ok = mcpgate::dlp::shannonEntropy(sv) >= r.min_entropy;
      }
      found += ok ? 1 : 0;
      lo = end > lo ? end : lo + 1;
    }
    return found;
  }

  const std::vector<Rule>& rules_;
  std::vector<std::unique_ptr<re2::RE2::Set>> sets_;
  std::vector<std::vector<std::size_t>> ids_;  // per set: Set index -> rule index
  std::vector<std::unique_ptr<re2::RE2>> singles_;
  std::vector<int> hits_;
  bool ok_ = false;
};

void BM_Re2SetBaseline(benchmark::State& state) {
  Re2Baseline re2(*shipped());
  if (!re2.ok()) {
    state.SkipWithError("RE2::Set compile failed");
    return;
  }
  std::size_t findings = 0;
  for (auto _ : state) {
    for (const auto& d : docs()) {
      if (!re2.scan(d, findings)) state.SkipWithError("RE2::Set DFA out of memory");
    }
  }
  if (findings != 0) state.SkipWithError("clean corpus produced findings");
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
