#pragma once

// One scan of one string through all its layers: the Hyperscan pass (over
// one string, or over all strings of a message at once), RE2 confirmation in
// a window, keywords, stopwords, excludes and validators, then the
// normalized and decoded views. The scanner (scanner.cc) walks a message,
// budgets decoding and turns hits into findings.

#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlp/decode.h"
#include "dlp/rule.h"
#include "dlp/rule_set.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp::detail {

struct Hit {
  std::uint32_t rule;
  std::size_t start;
  std::size_t end;
  std::string decoded_by;
};

// One string of a JSON message inside the buffer that holds all of them (see JsonWalker).
struct Segment {
  std::size_t begin = 0;  // offset in the buffer
  std::string_view text;
  std::string_view context;
  // JSON pointer, as a range of JsonWalker::pointers_ (one arena instead of a string each).
  std::size_t pointer_begin = 0;
  std::size_t pointer_size = 0;
  bool in_key = false;
  std::vector<Hit> hits;
};

// Whether a rule reports findings of its own in this scan.
[[nodiscard]] bool reportsAlone(const Rule& r, Direction dir, const Policy& policy);

// Whether the detector at `index` scores this scan (its direction, not disabled).
[[nodiscard]] bool detectorRuns(const RuleSet& rs, std::size_t index, Direction dir,
                                const Policy& policy);

// One scan of one top-level string, through all its normalized and decoded layers.
class Run {
 public:
  Run(const RuleSet& rs, Direction dir, const Policy& policy, std::string_view context)
      : rs_(rs), dir_(dir), policy_(policy), context_(context) {}

  bool failed = false;
  DecodeBudget budget;

  void layer(std::string_view text, std::size_t depth, std::vector<Hit>& out);

  // One Hyperscan pass over every string of a message, joined by newlines in `buffer`: a small
  // message costs one scan call instead of one per string. Candidates are confirmed inside their
  // own string only, so results equal per-string scanning.
  void segmentedPass(std::string_view buffer, std::vector<Segment>& segments);

  // The normalized and decoded views of `text` (the raw view is scanned by the caller).
  void derived(std::string_view text, std::size_t depth, std::vector<Hit>& out);

 private:
  struct Pass {
    Run* run;
    std::string_view text;
    std::vector<Hit>* out;
    std::size_t offset = 0;  // where the scanned window starts in `text`
  };

  void hsPass(std::string_view text, std::vector<Hit>& out);

  static int onMatch(unsigned id, unsigned long long /*from*/, unsigned long long to,
                     unsigned /*flags*/, void* ctx);

  // Starts the per-rule bookkeeping of this pass for `id`; false if the rule is off for this scan.
  bool touch(unsigned id, const Rule& r);

  // Keyword-gated rules on a string whose context (its JSON key) holds one of their keywords:
  // Hyperscan only sees the text, so RE2 searches the whole string here.
  void contextPass(std::string_view text, std::string_view context, std::vector<Hit>& out);

  // Where the next search for the same rule starts: after the secret, not after the whole
  // match. A rule's pattern may end in a boundary character (`[^A-Za-z0-9]`) that is also the
  // next secret's leading boundary: with two keys one comma apart, resuming after the comma
  // would hide the second key.
  static std::size_t resumeAfter(std::string_view text, std::size_t ms, std::size_t me,
                                 re2::StringPiece group);

  void searchWhole(unsigned id, std::string_view text, std::string_view context,
                   std::vector<Hit>& out);

  // `to` is the reported end within `text`, which starts at `base` in the scanned buffer (the
  // per-rule bookkeeping is in buffer offsets).
  void confirm(unsigned id, std::size_t to, std::string_view text, std::size_t base,
               std::string_view context, std::vector<Hit>& out);

  void accept(unsigned id, const Rule& r, const RuleSet::Confirm& cf, std::string_view text,
              std::size_t ms, std::size_t me, re2::StringPiece group, std::string_view context,
              std::vector<Hit>& out);

  const RuleSet& rs_;
  Direction dir_;
  const Policy& policy_;
  std::string_view context_;
  std::vector<Segment>* segments_ = nullptr;
  // (key text, rule) for keys in which Hyperscan reported a keyword-gated rule's keyword.
  std::vector<std::pair<const char*, unsigned>> gated_keys_;
};

// One finding per rule per overlapping region: the plain view and a decoded view of the same
// secret, or two matches that touch, become one; the plainest `decoded_by` wins.
void mergeHits(std::vector<Hit>& hits);

}  // namespace mcpgate::dlp::detail
