#pragma once

// An immutable, compiled set of rules: one Hyperscan block-mode database for every pattern, and
// per rule the RE2 programs that confirm a candidate and find its exact span. Built once, shared
// by every scanning thread as shared_ptr<const RuleSet>; a reload builds a new one.

#include <hs/hs.h>

#include <atomic>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dlp/error.h"
#include "dlp/hs_util.h"
#include "dlp/rule.h"

namespace mcpgate::dlp {

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
  struct Confirm {
    std::unique_ptr<re2::RE2> re;
    std::vector<std::unique_ptr<re2::RE2>> exclude;
    // Widest match the pattern can produce, bounded: the RE2 window around a reported end.
    std::size_t window = 0;
    bool keyword_gated = false;  // `prefilter: keywords`: Hyperscan reports a keyword
  };
  // Rules without a gate; null if every rule is gated.
  [[nodiscard]] const hs_database_t* database() const { return db_.get(); }
  // Rules with a gate, scanned only inside gates().windows(text, gateReach()); null if none.
  [[nodiscard]] const hs_database_t* gatedDatabase() const { return gated_db_.get(); }
  [[nodiscard]] const Gates& gates() const { return gates_; }
  [[nodiscard]] std::size_t gateReach() const { return gate_reach_; }
  // Rules with `prefilter: keywords`: the scanner also runs them on whole strings whose context
  // (JSON key) carries one of their keywords, since Hyperscan never sees that key.
  [[nodiscard]] const std::vector<std::size_t>& keywordGated() const { return keyword_gated_; }
  [[nodiscard]] const Confirm& confirm(std::size_t rule_index) const {
    return confirm_[rule_index];
  }

 private:
  RuleSet() = default;

  std::vector<Rule> rules_;
  std::vector<Confirm> confirm_;
  std::vector<std::size_t> keyword_gated_;
  std::unordered_map<std::string, std::size_t> by_id_;
  HsDatabase db_;
  HsDatabase gated_db_;
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
    return current_.load(std::memory_order_acquire);
  }
  void set(std::shared_ptr<const RuleSet> next) {
    current_.store(std::move(next), std::memory_order_release);
  }

 private:
  std::atomic<std::shared_ptr<const RuleSet>> current_;
};

}  // namespace mcpgate::dlp
