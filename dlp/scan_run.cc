#include "dlp/scan_run.h"

#include <algorithm>
#include <climits>
#include <limits>
#include <tuple>

#include "dlp/hs_util.h"
#include "dlp/normalize.h"
#include "dlp/validators.h"

namespace mcpgate::dlp::detail {
namespace {

// RE2 retries on one reported end: an earlier real match can sit in the window before it, and
// the first search may start inside the rule's previous match (see Run::confirm).
constexpr int kMaxConfirmAttempts = 5;
// Submatch slots: secret_group is limited to 9 in checkRule's callers.
constexpr int kMaxGroups = 10;

// Per-thread scan state. Hyperscan scratch is not re-entrant and must not be allocated on the
// scan path, so each thread keeps one, grown (hs_alloc_scratch) only when it meets a database
// that needs more. The per-rule arrays let the match callback skip ends that a confirmed match
// already covers; `stamp` makes resetting them O(1) per pass.
struct ThreadState {
  HsScratch scratch;
  std::string prepared_for;  // RuleSet::hash() the scratch was last checked against
  std::vector<std::uint32_t> stamp;
  std::vector<std::size_t> searched;  // one past the start of the rule's last match
  std::vector<std::size_t> skip;      // reported ends up to here need no RE2 run
  std::uint32_t gen = 0;
  std::vector<std::pair<std::size_t, std::size_t>> windows;  // gated database's windows
};
thread_local ThreadState tls;

bool prepareThread(const RuleSet& rs) {
  auto& t = tls;
  if (t.prepared_for != rs.hash() || !t.scratch) {
    // One scratch serves both databases: hs_alloc_scratch grows it to fit each.
    hs_scratch_t* s = t.scratch.release();
    for (const hs_database_t* db : {rs.database(), rs.gatedDatabase(), rs.requestDatabase()}) {
      if (db != nullptr && hs_alloc_scratch(db, &s) != HS_SUCCESS) {
        t.scratch.reset(s);
        return false;
      }
    }
    t.scratch.reset(s);
    t.prepared_for = rs.hash();
  }
  if (t.stamp.size() < rs.size()) {
    t.stamp.resize(rs.size(), 0);
    t.searched.resize(rs.size(), 0);
    t.skip.resize(rs.size(), 0);
  }
  return true;
}

// `needle` is lower-case (keywords and stopwords are lower-cased at load). Runs for every
// keyword of every candidate and JSON key, so it scans for the first byte in either case and
// compares the rest only there.
std::size_t findCaseless(std::string_view hay, std::string_view needle) {
  if (needle.empty() || hay.size() < needle.size()) return std::string_view::npos;
  const auto lower = [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  };
  const char first = needle[0];
  const char first_upper =
      (first >= 'a' && first <= 'z') ? static_cast<char>(first - 'a' + 'A') : first;
  const std::size_t last = hay.size() - needle.size();
  for (std::size_t i = 0; i <= last; ++i) {
    if (hay[i] != first && hay[i] != first_upper) continue;
    std::size_t k = 1;
    while (k < needle.size() && lower(hay[i + k]) == needle[k]) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

bool containsCaseless(std::string_view hay, std::string_view needle) {
  return findCaseless(hay, needle) != std::string_view::npos;
}

// Whether `pos` lies inside a redaction marker the gateway wrote ("[REDACTED:rule-id]" or
// "[REDACTED:rule-id:hmac]", dlp/redact.cc): its rule id names a service ("twitter",
// "api-key"), which must not count as a keyword when redacted text is scanned again (a second
// gateway, the aggregate, `mcpgate scan` of a redacted log).
bool insideMarker(std::string_view text, std::size_t pos) {
  constexpr std::string_view kOpen = "[REDACTED:";
  constexpr std::size_t kLongestMarker = 160;  // rule ids are short; an HMAC adds 33
  const std::size_t floor = pos > kLongestMarker ? pos - kLongestMarker : 0;
  for (std::size_t i = pos; i-- > floor;) {
    if (text[i] == ']') return false;
    if (text[i] == '[') return text.substr(i, kOpen.size()) == kOpen;
  }
  return false;
}

// `key` equals one of the rule's (lower-case) keywords, ignoring case, `_` and `-` on both sides.
bool keyIsKeyword(const Rule& r, std::string_view key) {
  const auto same = [key](std::string_view word) {
    std::size_t i = 0, j = 0;
    for (;; ++i, ++j) {
      while (i < key.size() && (key[i] == '_' || key[i] == '-')) ++i;
      while (j < word.size() && (word[j] == '_' || word[j] == '-')) ++j;
      if (i == key.size() || j == word.size()) return i == key.size() && j == word.size();
      const char c = key[i];
      if (((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c) != word[j]) return false;
    }
  };
  return !key.empty() && std::ranges::any_of(r.keywords, same);
}

// containsCaseless, not counting occurrences inside a redaction marker. `from` and `to` bound
// the search in `text`; the marker test may look before `from`.
bool keywordIn(std::string_view text, std::size_t from, std::size_t to, std::string_view needle) {
  while (from < to) {
    const std::size_t found = findCaseless(text.substr(from, to - from), needle);
    if (found == std::string_view::npos) return false;
    if (!insideMarker(text, from + found)) return true;
    from += found + 1;
  }
  return false;
}

re2::StringPiece piece(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace
bool reportsAlone(const Rule& r, Direction dir, const Policy& policy) {
  if (policy.signals && r.isSignal()) return true;
  return policy.all_directions ? (r.request || r.response) : r.appliesTo(dir);
}

bool detectorRuns(const RuleSet& rs, std::size_t index, Direction dir, const Policy& policy) {
  if (index == RuleSet::kNoDetector) return false;
  const Rule& d = rs.rules()[index];
  if (!policy.all_directions && !d.appliesTo(dir)) return false;
  return policy.disabled.empty() || !policy.disabled.contains(d.id);
}

void Run::layer(std::string_view text, std::size_t depth, std::vector<Hit>& out) {
  hsPass(text, out);
  if (failed) return;
  derived(text, depth, out);
}

void Run::segmentedPass(std::string_view buffer, std::vector<Segment>& segments) {
  if (buffer.empty()) return;
  segments_ = &segments;
  std::vector<Hit> unused;
  hsPass(buffer, unused);
  segments_ = nullptr;
}

void Run::derived(std::string_view text, std::size_t depth, std::vector<Hit>& out) {
  MappedText norm;
  const MappedText* norm_map = nullptr;
  std::string_view base = text;
  if (policy_.normalize && hasNonAscii(text)) {
    norm = normalize(text);
    if (norm.text != text) {
      const std::size_t first = out.size();
      hsPass(norm.text, out);
      for (std::size_t i = first; i < out.size(); ++i) {
        std::tie(out[i].start, out[i].end) = norm.toSource(out[i].start, out[i].end);
        out[i].decoded_by = "unicode";
      }
      base = norm.text;
      norm_map = &norm;
    }
  }
  if (!policy_.decode || depth >= policy_.max_decode_depth) return;
  for (auto& d : decodeAll(base, budget, &rs_.tokenPrefixes())) {
    std::vector<Hit> sub;
    layer(d.mapped.text, depth + 1, sub);
    // A view made because a token prefix was found answers for that prefix's rules only: its
    // joined or turned lines are not text anyone wrote, and a generic rule (a whole line that
    // looks like a credential) would report them.
    const bool prefix_view = d.encoding == Encoding::kReversed ||
                             d.encoding == Encoding::kRot13 || d.encoding == Encoding::kBroken;
    // The views joined or turned around for credentials (a value after its name, a URL) answer
    // for secret rules only: an address or an injection signal in a joined line is not one
    // anyone wrote.
    const bool secret_view = d.encoding == Encoding::kBrokenAssigned ||
                             d.encoding == Encoding::kBrokenUrl ||
                             d.encoding == Encoding::kReversedUrl;
    for (auto& h : sub) {
      if (prefix_view && !rs_.prefixLed(h.rule)) continue;
      if (secret_view && (h.rule >= rs_.rules().size() ||
                          rs_.rules()[h.rule].category != Category::kSecret ||
                          rs_.rules()[h.rule].is_detector)) {
        continue;
      }
      auto [s, e] = d.mapped.toSource(h.start, h.end);
      if (norm_map != nullptr) std::tie(s, e) = norm_map->toSource(s, e);
      std::string tag(toString(d.encoding));
      if (!h.decoded_by.empty()) tag += ">" + h.decoded_by;
      out.push_back(Hit{h.rule, s, e, std::move(tag)});
    }
  }
}

void Run::hsPass(std::string_view text, std::vector<Hit>& out) {
  if (text.empty()) return;
  if (text.size() > UINT_MAX || !prepareThread(rs_)) {
    failed = true;
    return;
  }
  auto& t = tls;
  if (++t.gen == 0) {  // wrapped: old stamps could collide with the new generation
    std::ranges::fill(t.stamp, 0);
    t.gen = 1;
  }
  Pass pass{this, text, &out};
  const hs_database_t* db = rs_.databaseFor(dir_, policy_.all_directions, policy_.signals);
  if (db != nullptr && hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0,
                               t.scratch.get(), &Run::onMatch, &pass) != HS_SUCCESS) {
    failed = true;
  }
  // Gated rules (their ids are disjoint from the first database's, so the per-rule bookkeeping
  // of this pass carries over): only around the runs their gates found, in increasing order.
  if (rs_.gatedDatabase() != nullptr) {
    rs_.gates().windows(text, rs_.gateReach(), t.windows);
    for (const auto& [wb, we] : t.windows) {
      pass.offset = wb;
      if (hs_scan(rs_.gatedDatabase(), text.data() + wb, static_cast<unsigned>(we - wb), 0,
                  t.scratch.get(), &Run::onMatch, &pass) != HS_SUCCESS) {
        failed = true;
      }
    }
  }
  // A match found here and by Hyperscan's keyword report too is merged later (mergeHits).
  if (segments_ == nullptr) {
    contextPass(text, context_, out);
    return;
  }
  // Rules keyed on whole JSON keys are in no Hyperscan database: each value under such a key.
  for (const std::size_t index : rs_.jsonKeyRules()) {
    const auto id = static_cast<unsigned>(index);
    const Rule& r = rs_.rules()[id];
    for (auto& seg : *segments_) {
      if (keyIsKeyword(r, seg.context)) searchWhole(id, seg.text, seg.context, seg.hits);
    }
  }
  if (!gated_keys_.empty()) {
    // The JSON keys were scanned as segments too: a keyword report in a key marks the values
    // under it (their context is that very key).
    for (auto& seg : *segments_) {
      for (const auto& [key, id] : gated_keys_) {
        if (!seg.context.empty() && seg.context.data() == key) {
          searchWhole(id, seg.text, seg.context, seg.hits);
        }
      }
    }
    gated_keys_.clear();
  }
}

int Run::onMatch(unsigned id, unsigned long long /*from*/, unsigned long long to,
                 unsigned /*flags*/, void* ctx) {
  auto& pass = *static_cast<Pass*>(ctx);
  Run& run = *pass.run;
  const auto end = static_cast<std::size_t>(to) + pass.offset;
  if (run.segments_ == nullptr) {
    run.confirm(id, end, pass.text, 0, run.context_, *pass.out);
    return 0;
  }
  // The string holding the match's last byte; a match that ends on the newline after a string
  // (a trailing `(?:[^a-z]|$)`) belongs to that string and ends at its end.
  auto& segs = *run.segments_;
  const auto it = std::upper_bound(segs.begin(), segs.end(), end - 1,
                                   [](std::size_t pos, const Segment& s) { return pos < s.begin; });
  Segment& seg = *(it - 1);
  if (seg.in_key && run.rs_.confirm(id).keyword_gated &&
      (run.gated_keys_.empty() || run.gated_keys_.back() != std::pair(seg.text.data(), id))) {
    run.gated_keys_.emplace_back(seg.text.data(), id);
  }
  const std::size_t local = std::min(end - seg.begin, seg.text.size());
  if (local == 0) return 0;
  run.confirm(id, local, seg.text, seg.begin, seg.context, seg.hits);
  return 0;
}

bool Run::touch(unsigned id, const Rule& r) {
  auto& t = tls;
  if (t.stamp[id] != t.gen) {
    t.stamp[id] = t.gen;
    t.searched[id] = 0;
    t.skip[id] = 0;
  }
  if ((!reportsAlone(r, dir_, policy_) &&
       !detectorRuns(rs_, rs_.confirm(id).detector, dir_, policy_)) ||
      (!policy_.disabled.empty() && policy_.disabled.contains(r.id))) {
    t.skip[id] = std::numeric_limits<std::size_t>::max();
    return false;
  }
  return true;
}

void Run::contextPass(std::string_view text, std::string_view context, std::vector<Hit>& out) {
  if (context.empty() || rs_.keywordGated().empty()) return;
  for (const std::size_t index : rs_.keywordGated()) {
    const auto id = static_cast<unsigned>(index);
    const Rule& r = rs_.rules()[id];
    if (r.keywords_json_key ? keyIsKeyword(r, context)
                            : std::ranges::any_of(r.keywords, [&](const std::string& k) {
                                return containsCaseless(context, k);
                              })) {
      searchWhole(id, text, context, out);
    }
  }
}

std::size_t Run::resumeAfter(std::string_view text, std::size_t ms, std::size_t me,
                             re2::StringPiece group) {
  if (group.data() == nullptr) return me;
  const auto end = static_cast<std::size_t>(group.data() - text.data()) + group.size();
  return end > ms && end < me ? end : me;
}

void Run::searchWhole(unsigned id, std::string_view text, std::string_view context,
                      std::vector<Hit>& out) {
  const Rule& r = rs_.rules()[id];
  if (!touch(id, r)) return;
  const auto& cf = rs_.confirm(id);
  re2::StringPiece g[kMaxGroups];
  const int ngroups = std::min(r.secret_group + 1, kMaxGroups);
  std::size_t lo = 0;
  while (lo < text.size() &&
         cf.re->Match(piece(text), lo, text.size(), re2::RE2::UNANCHORED, g, ngroups)) {
    const std::size_t ms = static_cast<std::size_t>(g[0].data() - text.data());
    const std::size_t me = ms + g[0].size();
    accept(id, r, cf, text, ms, me, g[ngroups - 1], context, out);
    if (me == ms) break;
    lo = resumeAfter(text, ms, me, g[ngroups - 1]);
  }
}

void Run::confirm(unsigned id, std::size_t to, std::string_view text, std::size_t base,
                  std::string_view context, std::vector<Hit>& out) {
  auto& t = tls;
  const auto& cf = rs_.confirm(id);
  const Rule& r = rs_.rules()[id];
  // Near a keyword reported at `to` (its end), a match counts only with the keyword at most
  // kKeywordBefore before its start or kKeywordAfter after its end (accept()), so it lies in
  // [to - kKeywordAfter - width, to + kKeywordBefore + width]: about half of +-cf.window.
  const std::size_t after = cf.keyword_gated ? kKeywordBefore + cf.base_window : cf.window;
  const std::size_t hi = std::min(text.size(), to + after);
  // A pattern's report is its match's end; a keyword's or a prefilter's report stands for
  // every match in its window (a prefilter's match may end a window after it), so it is
  // covered only once the whole window was searched.
  const std::size_t reach = cf.keyword_gated || !r.prefilter.empty() ? hi : to;
  if (t.stamp[id] == t.gen && base + reach <= t.skip[id]) return;
  if (!touch(id, r) || base + reach <= t.skip[id]) return;
  // The search starts just after the previous match's start, not after its end: a match can
  // begin inside the one before it (`export ` inside the previous value of
  // `(?:^|export )TOKEN=(\S{12,})`), and starting after the end would lose it. Starting
  // there finds the previous match's tail again at worst, which costs one more attempt.
  const std::size_t before = cf.keyword_gated ? kKeywordAfter + cf.base_window : cf.window;
  std::size_t lo = std::max(t.searched[id] > base ? t.searched[id] - base : 0,
                            to > before ? to - before : 0);
  // Until this pass finds the rule's first match, each keyword search started at its own
  // range's start and found nothing up to `skip`; a match in this range lies in no earlier one
  // (the ranges move on with the reports), so it ends after `skip` and starts at most the
  // pattern's width before it. Dense keywords ("copper" in prose) then search each byte once.
  if (cf.keyword_gated && t.searched[id] == 0 && t.skip[id] > base + cf.base_window) {
    lo = std::max(lo, t.skip[id] - base - cf.base_window);
  }
  re2::StringPiece g[kMaxGroups];
  const int ngroups = std::min(r.secret_group + 1, kMaxGroups);
  for (int attempt = 0; cf.keyword_gated || attempt < kMaxConfirmAttempts; ++attempt) {
    if (!cf.re->Match(piece(text), lo, hi, re2::RE2::UNANCHORED, g, ngroups)) {
      t.skip[id] = std::max(t.skip[id], base + hi);
      return;
    }
    const std::size_t ms = static_cast<std::size_t>(g[0].data() - text.data());
    const std::size_t me = ms + g[0].size();
    const std::size_t resume = resumeAfter(text, ms, me, g[ngroups - 1]);
    t.searched[id] = base + ms + 1;
    t.skip[id] = std::max(t.skip[id], base + me);
    accept(id, r, cf, text, ms, me, g[ngroups - 1], context, out);
    if (me == ms) return;
    // A match ending before `to` was a different (earlier) one; look again after it. Near a
    // keyword every match counts (a list of keys after one "hunter"): search on to the window's
    // end, which is finite (RuleSet: the pattern's width, capped, plus the keyword's reach).
    if (me >= to && !cf.keyword_gated) return;
    lo = resume;
  }
}

void Run::accept(unsigned id, const Rule& r, const RuleSet::Confirm& cf, std::string_view text,
                 std::size_t ms, std::size_t me, re2::StringPiece group, std::string_view context,
                 std::vector<Hit>& out) {
  if (group.data() == nullptr) return;  // the secret group did not take part in this match
  const std::string_view secret(group.data(), group.size());
  if (secret.size() < r.min_length || (r.max_length != 0 && secret.size() > r.max_length)) {
    return;
  }
  // A `keyword_scope: json_key` rule reaches here only through a key its callers matched.
  if (!r.keywords.empty() && !r.keywords_json_key) {
    const std::size_t kb = ms > kKeywordBefore ? ms - kKeywordBefore : 0;
    const std::size_t ke = std::min(text.size(), me + kKeywordAfter);
    const bool found = std::ranges::any_of(r.keywords, [&](const std::string& k) {
      return keywordIn(text, kb, ke, k) || keywordIn(context, 0, context.size(), k);
    });
    if (!found) return;
  }
  for (const auto& w : r.stopwords) {
    if (containsCaseless(secret, w)) return;
  }
  for (const auto& x : cf.exclude) {
    if (re2::RE2::PartialMatch(piece(secret), *x)) return;
  }
  for (const auto& x : cf.exclude_match) {
    if (re2::RE2::PartialMatch(piece(text.substr(ms, me - ms)), *x)) return;
  }
  switch (r.validator) {
    case ValidatorKind::kNone:
      break;
    case ValidatorKind::kLuhn:
      if (!luhnValid(secret)) return;
      break;
    case ValidatorKind::kIban:
      if (!ibanValid(secret)) return;
      break;
    case ValidatorKind::kEntropy:
      if (shannonEntropy(secret) < r.min_entropy) return;
      break;
  }
  const auto start = static_cast<std::size_t>(secret.data() - text.data());
  out.push_back(Hit{id, start, start + secret.size(), {}});
}

void mergeHits(std::vector<Hit>& hits) {
  if (hits.size() < 2) return;
  std::ranges::sort(hits, [](const Hit& a, const Hit& b) {
    return std::tie(a.rule, a.start, a.end) < std::tie(b.rule, b.start, b.end);
  });
  std::size_t w = 0;
  for (std::size_t i = 1; i < hits.size(); ++i) {
    Hit& cur = hits[w];
    Hit& h = hits[i];
    if (h.rule == cur.rule && h.start < cur.end) {
      cur.end = std::max(cur.end, h.end);
      if (h.decoded_by.size() < cur.decoded_by.size()) cur.decoded_by = std::move(h.decoded_by);
    } else if (++w != i) {
      hits[w] = std::move(h);  // never onto itself: a self-moved string may come out empty
    }
  }
  hits.resize(w + 1);
  std::ranges::sort(hits, [](const Hit& a, const Hit& b) {
    return std::tie(a.start, a.end, a.rule) < std::tie(b.start, b.end, b.rule);
  });
}

}  // namespace mcpgate::dlp::detail
