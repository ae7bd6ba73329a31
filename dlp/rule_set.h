#pragma once

// An immutable, compiled set of rules: one Hyperscan block-mode database for every pattern, and
// per rule the RE2 programs that confirm a candidate and find its exact span. Built once, shared
// by every scanning thread as shared_ptr<const RuleSet>; a reload builds a new one.

#include <hs/hs.h>
#include <re2/re2.h>

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/shared_slot.h"
#include "dlp/error.h"
#include "dlp/decode.h"
#include "dlp/hs_util.h"
#include "dlp/rule.h"

namespace mcpgate::dlp {

// An RE2 program compiled on first use, once, by whichever scanning thread needs it first: a warm
// start then pays only for the rules that ever see a candidate. Use like a const pointer.
class LazyRe2 {
 public:
  LazyRe2() = default;
  LazyRe2(std::string pattern, const re2::RE2::Options& options)
      : state_(std::make_unique<State>(std::move(pattern), options)) {}
  [[nodiscard]] const re2::RE2& operator*() const { return get(); }
  [[nodiscard]] const re2::RE2* operator->() const { return &get(); }
  [[nodiscard]] const re2::RE2& get() const {
    std::call_once(state_->once, [s = state_.get()] {
      s->re = std::make_unique<re2::RE2>(s->pattern, s->options);
    });
    return *state_->re;
  }

 private:
  struct State {
    State(std::string p, const re2::RE2::Options& o) : pattern(std::move(p)), options(o) {}
    std::string pattern;
    re2::RE2::Options options;
    std::once_flag once;
    std::unique_ptr<re2::RE2> re;
  };
  std::unique_ptr<State> state_;
};

struct LoadOptions {
  // Where serialized databases are kept between runs, keyed by a hash of the rules and the
  // Hyperscan version; empty disables the cache.
  std::filesystem::path cache_dir;
};

class RuleSet {
 public:
  // Loads every rule file named by `paths` (files, or directories searched for *.yaml/*.yml).
  [[nodiscard]] static std::expected<std::shared_ptr<const RuleSet>, Error> load(
      std::span<const std::filesystem::path> paths, const LoadOptions& options = {});
  // Compiles rules built in code (tests, benchmarks). Ids must be unique.
  [[nodiscard]] static std::expected<std::shared_ptr<const RuleSet>, Error> fromRules(
      std::vector<Rule> rules, const LoadOptions& options = {});

  ~RuleSet();
  RuleSet(const RuleSet&) = delete;
  RuleSet& operator=(const RuleSet&) = delete;

  [[nodiscard]] const std::vector<Rule>& rules() const { return rules_; }
  [[nodiscard]] std::size_t size() const { return rules_.size(); }
  [[nodiscard]] const Rule* find(std::string_view id) const;
  // SHA-256 over everything that affects the compiled database, in hex.
  [[nodiscard]] const std::string& hash() const { return hash_; }
  // True if the database came from the cache instead of being compiled.
  [[nodiscard]] bool fromCache() const { return from_cache_; }

  // For the scanner.
  static constexpr std::size_t kNoDetector = static_cast<std::size_t>(-1);
  struct Confirm {
    // Compiled lazily: rules loaded from the cache were validated when they were cached.
    LazyRe2 re;
    std::vector<LazyRe2> exclude;
    std::vector<LazyRe2> exclude_match;
    // Widest match the pattern can produce, bounded: the RE2 window around a reported end.
    std::size_t window = 0;
    std::size_t base_window = 0;  // `window` before the keyword widening (what the cache keeps)
    bool keyword_gated = false;   // `prefilter: keywords`: Hyperscan reports a keyword
    // For a detector signal: the index of its detector (kNoDetector: not a signal, or the
    // detector is not loaded).
    std::size_t detector = kNoDetector;
  };
  // Indices of the detector rules (Rule::is_detector).
  [[nodiscard]] const std::vector<std::size_t>& detectors() const { return detectors_; }
  // The literal prefixes of the secret rules, for finding tokens written backwards or in ROT13.
  [[nodiscard]] const TokenPrefixes& tokenPrefixes() const { return token_prefixes_; }
  // Whether rule `i` is one of those prefixes' rules: the only ones that report on a view made
  // because a prefix was found (a reversed, ROT13 or line-broken token).
  [[nodiscard]] bool prefixLed(std::size_t i) const { return i < prefix_led_.size() && prefix_led_[i]; }
  // Rules without a gate; null if every rule is gated.
  [[nodiscard]] const hs_database_t* database() const { return db_.get(); }
  // What a scan in `dir` runs over the whole text: database(), or, for a request under a policy
  // that keeps each rule's directions, the request database: the plain rules that apply to
  // requests or feed a detector that does (null when there are none). Hyperscan ids are rule
  // indices in both.
  [[nodiscard]] const hs_database_t* databaseFor(Direction dir, bool all_directions,
                                                 bool signals) const {
    if (dir == Direction::kRequest && request_split_ && !all_directions && !signals) {
      return request_db_.get();
    }
    return db_.get();
  }
  [[nodiscard]] const hs_database_t* requestDatabase() const { return request_db_.get(); }
  // Rules with a gate, scanned only inside gates().windows(text, gateReach()); null if none.
  [[nodiscard]] const hs_database_t* gatedDatabase() const { return gated_db_.get(); }
  [[nodiscard]] const Gates& gates() const { return gates_; }
  [[nodiscard]] std::size_t gateReach() const { return gate_reach_; }
  // Rules with `prefilter: keywords`: the scanner also runs them on whole strings whose context
  // (JSON key) carries one of their keywords, since Hyperscan never sees that key.
  [[nodiscard]] const std::vector<std::size_t>& keywordGated() const { return keyword_gated_; }
  // Indices of the rules with `keyword_scope: json_key` (in no Hyperscan database).
  [[nodiscard]] const std::vector<std::size_t>& jsonKeyRules() const { return json_key_rules_; }
  [[nodiscard]] const Confirm& confirm(std::size_t rule_index) const {
    return confirm_[rule_index];
  }

 private:
  RuleSet() = default;
  // fromRules without checkRule for rules that were checked already (loaded from YAML or from
  // the rule cache); `windows`, if given, are the cached Confirm windows.
  static std::expected<std::shared_ptr<const RuleSet>, Error> build(
      std::vector<Rule> rules, const LoadOptions& options, bool checked,
      const std::vector<std::size_t>* windows);

  std::vector<Rule> rules_;
  std::vector<Confirm> confirm_;
  std::vector<std::size_t> keyword_gated_;
  std::vector<std::size_t> json_key_rules_;
  std::vector<std::size_t> detectors_;
  std::unordered_map<std::string, std::size_t> by_id_;
  HsDatabase db_;
  TokenPrefixes token_prefixes_;
  std::vector<bool> prefix_led_;
  HsDatabase gated_db_;
  HsDatabase request_db_;
  bool request_split_ = false;  // requests scan request_db_, not db_
  Gates gates_;
  std::size_t gate_reach_ = 0;
  std::string hash_;
  bool from_cache_ = false;
};

// Where the current rule set lives. Each message takes a snapshot with get() and scans with it to
// the end; a reload builds a new RuleSet and set()s it, and the old one is freed when the last
// scan holding it finishes.
class RuleSetHandle {
 public:
  explicit RuleSetHandle(std::shared_ptr<const RuleSet> initial) : current_(std::move(initial)) {}

  [[nodiscard]] std::shared_ptr<const RuleSet> get() const {
    return current_.load();
  }
  void set(std::shared_ptr<const RuleSet> next) {
    current_.store(std::move(next));
  }

 private:
  SharedSlot<const RuleSet> current_;
};

}  // namespace mcpgate::dlp
