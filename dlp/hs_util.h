#pragma once

// RAII for Hyperscan's C handles and the flag/compile helpers shared by rule checking and
// RuleSet. Internal to dlp/.

#include <hs/hs.h>
#include <re2/re2.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dlp/rule.h"

namespace mcpgate::dlp {

struct HsDatabaseFree {
  // Set for a database mapped from the rule cache (rule_set.cc): its bytes belong to the mapping,
  // which goes with the last owner, not to Hyperscan's allocator.
  std::shared_ptr<const void> mapping;
  void operator()(hs_database_t* p) const {
    if (!mapping) hs_free_database(p);
  }
};
struct HsScratchFree {
  void operator()(hs_scratch_t* p) const { hs_free_scratch(p); }
};
struct HsCompileErrorFree {
  void operator()(hs_compile_error_t* p) const { hs_free_compile_error(p); }
};
// hs_expression_info allocates with the misc allocator, which defaults to malloc.
struct HsExprInfoFree {
  void operator()(hs_expr_info_t* p) const { std::free(p); }
};

using HsDatabase = std::unique_ptr<hs_database_t, HsDatabaseFree>;
using HsScratch = std::unique_ptr<hs_scratch_t, HsScratchFree>;
using HsCompileError = std::unique_ptr<hs_compile_error_t, HsCompileErrorFree>;
using HsExprInfo = std::unique_ptr<hs_expr_info_t, HsExprInfoFree>;

// No HS_FLAG_SOM_LEFTMOST: it costs speed and stream state, and RE2 finds the start anyway.
// No HS_FLAG_UTF8: invalid UTF-8 would be undefined behaviour, so both engines scan bytes.
[[nodiscard]] inline unsigned hsFlags(const Rule& r) {
  unsigned f = 0;
  if (r.caseless) f |= HS_FLAG_CASELESS;
  if (r.dotall) f |= HS_FLAG_DOTALL;
  // Always multiline for Hyperscan: a JSON message's strings are scanned joined by newlines
  // (scanner.cc), so ^ and $ must hold at every string's edges. That is a superset of a rule's
  // own anchors, and RE2 confirms each candidate inside its own string with the rule's flags.
  (void)r.multiline;
  f |= HS_FLAG_MULTILINE;
  return f;
}

// The expression Hyperscan compiles for a rule: the rule's pattern with wide bounded repeats
// ({0,300}) opened up ({0,}). Counting repeats are what makes a Hyperscan compile slow; the
// result matches a superset, and RE2 confirms every candidate with the exact pattern anyway.
[[nodiscard]] std::string hsExpression(std::string_view pattern);
// Where `p` has a repeat count written with a leading zero (`{06}`, `{1,020}`), or npos: RE2
// reads such a brace as text and Hyperscan as a repeat (checkRule refuses it).
[[nodiscard]] std::size_t leadingZeroRepeat(std::string_view p);
// What Hyperscan compiles for a rule: its prefilter, the alternation of its keywords for
// `prefilter: keywords`, or else hsExpression(pattern).
[[nodiscard]] std::string hsScanExpression(const Rule& r);
// The pattern RE2 confirms with: `(?m)` for multiline rules, and `\s`/`\S` spelled out so that
// vertical tab (0x0B) is white space to RE2 as it is to Hyperscan (PCRE's `\s`); RE2's `\s` leaves
// it out. Where the two disagreed, RE2 saw a match Hyperscan had not, resumed after it and lost
// the real one that began inside it (tests/fuzz/corpus/dlp_scan/regression-vertical-tab).
[[nodiscard]] std::string re2Pattern(const Rule& r);
[[nodiscard]] std::string re2Expression(std::string_view pattern);
// How far from its gate a gated rule's match can reach: the widths of its pattern and of its
// Hyperscan expression together (a prefilter match lies within the pattern's width of the match).
// 0 if either is unbounded or the sum is over kMaxGateReach.
inline constexpr std::size_t kMaxGateReach = 1024;
[[nodiscard]] std::size_t gateReach(const Rule& r);
[[nodiscard]] re2::RE2::Options re2Options(const Rule& r);
// The plain texts a pattern's match of capture group `group` (0: the whole pattern) must begin
// with, as far as they are literal bytes: "ghp_" for `(ghp_[A-Za-z0-9]{36})`, "AKIA" and "ASIA"
// for `((?:AKIA|ASIA)[A-Z2-7]{16})`. Empty when the group starts with a class, a wildcard or an
// optional part. For TokenPrefixes (turned tokens).
[[nodiscard]] std::vector<std::string> leadingLiterals(std::string_view pattern, int group);
[[nodiscard]] std::unique_ptr<re2::RE2> compileRe2(const Rule& r);

}  // namespace mcpgate::dlp
