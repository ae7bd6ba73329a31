// Two rule sets on the bench's clean corpus in one process, scans interleaved document by
// document, so the machine's drift (these VMs vary by 20 % from minute to minute) hits both
// alike. Prints the median over rounds of time(B) / time(A), for the whole pipeline and for
// matching alone (BM_ShippedPack/0 and /1 in dlp_bench).
//
//   dlp_rules_ab RULES_A RULES_B [ROUNDS]
//
// Used to price a rule pack change: copy rules/ without the change as A.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/dlp_corpus.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"

using mcpgate::bench::docs;
namespace dlp = mcpgate::dlp;

namespace {

std::shared_ptr<const dlp::RuleSet> load(const char* dir) {
  const std::vector<std::filesystem::path> paths = {dir};
  auto r = dlp::RuleSet::load(paths);
  if (!r) {
    std::fprintf(stderr, "%s: %s\n", dir, r.error().message.c_str());
    std::exit(2);
  }
  return *r;
}

double seconds(const dlp::Scanner& s, const std::string& doc, const dlp::Policy& p,
               std::size_t& findings) {
  const auto t0 = std::chrono::steady_clock::now();
  findings += s.scanText(doc, dlp::Direction::kResponse, p).items.size();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::ranges::sort(v);
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: dlp_rules_ab RULES_A RULES_B [ROUNDS]\n");
    return 2;
  }
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 30;
  const dlp::Scanner a(load(argv[1]));
  const dlp::Scanner b(load(argv[2]));
  for (const bool matching_only : {false, true}) {
    dlp::Policy p;
    p.all_directions = true;
    if (matching_only) {
      p.normalize = false;
      p.decode = false;
    }
    std::vector<double> ratios;
    double ta_total = 0;
    double tb_total = 0;
    std::size_t findings = 0;
    for (int r = 0; r < rounds; ++r) {
      double ta = 0;
      double tb = 0;
      for (const auto& d : docs()) {
        // Alternate which goes first, so neither always meets a warm cache.
        if (r % 2 == 0) {
          ta += seconds(a, d, p, findings);
          tb += seconds(b, d, p, findings);
        } else {
          tb += seconds(b, d, p, findings);
          ta += seconds(a, d, p, findings);
        }
      }
      ratios.push_back(tb / ta);
      ta_total += ta;
      tb_total += tb;
    }
    std::printf("%-14s A %.2f ms  B %.2f ms per corpus pass  B/A median %.3f (min %.3f, max %.3f)%s\n",
                matching_only ? "matching only" : "pipeline", 1e3 * ta_total / rounds,
                1e3 * tb_total / rounds, median(ratios), *std::ranges::min_element(ratios),
                *std::ranges::max_element(ratios), findings ? "  (findings on clean corpus!)" : "");
  }
  std::printf("rules: A %zu, B %zu\n", a.rules()->size(), b.rules()->size());
  return 0;
}
