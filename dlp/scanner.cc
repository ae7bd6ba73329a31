#include "dlp/scanner.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <utility>

#include "dlp/mention.h"
#include "dlp/scan_run.h"

namespace mcpgate::dlp {
namespace {

using detail::detectorRuns;
using detail::Hit;
using detail::mergeHits;
using detail::reportsAlone;
using detail::Run;
using detail::Segment;

// Integers with at least this many digits (9: a US SSN) are scanned as text.
constexpr std::int64_t kMinScannedInteger = 100'000'000;

class JsonWalker {
 public:
  JsonWalker(const RuleSet& rs, Direction dir, const Policy& policy, Findings& out)
      : rs_(rs), dir_(dir), policy_(policy), out_(out) {
    // Sized for a typical tools/call so small messages do not reallocate while walking.
    buffer_.reserve(1024);
    pointers_.reserve(512);
    segments_.reserve(32);
  }

  void walk(const nlohmann::json& v, std::string_view context) {
    switch (v.type()) {
      case nlohmann::json::value_t::string:
        add(v.get_ref<const std::string&>(), context, false);
        break;
      case nlohmann::json::value_t::object:
        for (const auto& [key, child] : v.items()) {
          const std::size_t mark = ptr_.size();
          appendPointerToken(ptr_, key);
          add(key, {}, true);
          walk(child, key);
          ptr_.resize(mark);
        }
        break;
      case nlohmann::json::value_t::array: {
        std::size_t i = 0;
        for (const auto& child : v) {
          const std::size_t mark = ptr_.size();
          appendPointerToken(ptr_, std::to_string(i++));
          walk(child, context);
          ptr_.resize(mark);
        }
        break;
      }
      case nlohmann::json::value_t::number_unsigned:
      case nlohmann::json::value_t::number_integer:
        // A card, phone or social security number sent as a JSON number is
        // still one; shorter integers (counts, ids, sizes) are not scanned.
        if (v.is_number_unsigned() ? v.get<std::uint64_t>() >= kMinScannedInteger
                                   : v.get<std::int64_t>() <= -kMinScannedInteger ||
                                         v.get<std::int64_t>() >= kMinScannedInteger) {
          numbers_.push_back(v.dump());
          add(numbers_.back(), context, false);
        }
        break;
      default:
        break;
    }
  }

  // Scans everything walk() collected: one raw pass over all strings, then the normalized and
  // decoded views string by string.
  void finish() {
    {
      Run run(rs_, dir_, policy_, {});
      run.segmentedPass(buffer_, segments_);
      if (run.failed) out_.failed = true;
    }
    for (auto& seg : segments_) {
      Run run(rs_, dir_, policy_, seg.context);
      startBudget(run);
      run.derived(seg.text, 0, seg.hits);
      if (run.failed) out_.failed = true;
      endBudget(run, std::string_view(pointers_).substr(seg.pointer_begin, seg.pointer_size));
      emit(seg.text, seg.hits,
           std::string_view(pointers_).substr(seg.pointer_begin, seg.pointer_size), seg.in_key);
    }
  }

  void scanString(std::string_view text, std::string_view context, bool in_key) {
    Run run(rs_, dir_, policy_, context);
    std::vector<Hit> hits;
    startBudget(run);
    run.layer(text, 0, hits);
    if (run.failed) out_.failed = true;
    endBudget(run, ptr_);
    emit(text, hits, ptr_, in_key);
  }

 private:
  // A string's decode budget: its own limit, or what the message has left if that is less.
  void startBudget(Run& run) const {
    run.budget.bytes = std::min(policy_.max_decoded_bytes, message_budget_);
  }
  void endBudget(const Run& run, std::string_view pointer) {
    const bool per_string = policy_.max_decoded_bytes <= message_budget_;
    message_budget_ -= std::min(policy_.max_decoded_bytes, message_budget_) - run.budget.bytes;
    if (!run.budget.exhausted || !out_.unscanned.empty()) return;
    out_.unscanned = "decoding " + std::string(pointer.empty() ? "the text" : pointer) +
                     " needs more than the limit of " +
                     std::to_string(per_string ? policy_.max_decoded_bytes
                                               : policy_.max_decoded_bytes_per_message) +
                     " decoded bytes " + (per_string ? "per string" : "per message") +
                     " (max_decoded_bytes" + (per_string ? "" : "_per_message") + ")";
    out_.unscanned_action = policy_.unscanned;
  }

  void add(std::string_view text, std::string_view context, bool in_key) {
    if (text.empty()) return;
    Segment seg;
    seg.begin = buffer_.size();
    seg.text = text;
    seg.context = context;
    seg.pointer_begin = pointers_.size();
    seg.pointer_size = ptr_.size();
    pointers_ += ptr_;
    seg.in_key = in_key;
    segments_.push_back(std::move(seg));
    buffer_.append(text);
    buffer_.push_back('\n');
  }

  void emit(std::string_view text, std::vector<Hit>& hits, std::string_view pointer, bool in_key) {
    mergeHits(hits);
    bool any_signal = false;
    for (const auto& h : hits) {
      const Rule& r = rs_.rules()[h.rule];
      if (rs_.confirm(h.rule).detector != RuleSet::kNoDetector) any_signal = true;
      if (!reportsAlone(r, dir_, policy_)) continue;
      out_.items.push_back(
          Finding{&r, actionOf(r), std::string(pointer), in_key, h.start, h.end, h.decoded_by});
    }
    if (any_signal) score(text, hits, pointer, in_key);
  }

  Action actionOf(const Rule& r) const {
    const auto a = policy_.actions.find(r.id);
    return a == policy_.actions.end() ? r.action : a->second;
  }

  // Each detector's score in this string: the weights of its distinct signals that matched, not
  // counting those that lie inside a quotation the text only mentions (dlp/mention.h).
  void score(std::string_view text, const std::vector<Hit>& hits, std::string_view pointer,
             bool in_key) {
    for (const std::size_t det : rs_.detectors()) {
      if (!detectorRuns(rs_, det, dir_, policy_)) continue;
      Finding f;
      f.start = std::numeric_limits<std::size_t>::max();
      bool first = true;
      for (const auto& h : hits) {  // sorted by start: the plainest view of a signal comes first
        if (rs_.confirm(h.rule).detector != det || quotedMention(text, h.start, h.end)) continue;
        const Rule& r = rs_.rules()[h.rule];
        f.start = std::min(f.start, h.start);
        f.end = std::max(f.end, h.end);
        if (first || h.decoded_by.size() < f.decoded_by.size()) f.decoded_by = h.decoded_by;
        first = false;
        if (std::ranges::find(f.signals, &r) != f.signals.end()) continue;
        f.signals.push_back(&r);
        f.score += r.weight;
      }
      const Rule& d = rs_.rules()[det];
      const auto t = policy_.thresholds.find(d.id);
      if (f.signals.empty() ||
          f.score < (t == policy_.thresholds.end() ? d.threshold : t->second)) {
        continue;
      }
      std::ranges::sort(f.signals, {}, [](const Rule* r) { return r; });
      f.rule = &d;
      f.action = actionOf(d);
      f.pointer = std::string(pointer);
      f.in_key = in_key;
      out_.items.push_back(std::move(f));
    }
  }

  const RuleSet& rs_;
  Direction dir_;
  const Policy& policy_;
  Findings& out_;
  std::string ptr_;
  std::string buffer_;
  std::deque<std::string> numbers_;  // the text of scanned numbers; segments point into it
  std::string pointers_;
  std::vector<Segment> segments_;
  std::size_t message_budget_ = policy_.max_decoded_bytes_per_message;
};

}  // namespace

void appendPointerToken(std::string& ptr, std::string_view key) {
  ptr.push_back('/');
  for (const char c : key) {
    if (c == '~') {
      ptr += "~0";
    } else if (c == '/') {
      ptr += "~1";
    } else {
      ptr.push_back(c);
    }
  }
}

Action Findings::strongest() const {
  Action a = failed ? Action::kBlock : unscanned.empty() ? Action::kLog : unscanned_action;
  for (const auto& f : items) a = std::max(a, f.action);
  return a;
}

Findings Scanner::scan(const nlohmann::json& message, Direction direction,
                       const Policy& policy) const {
  Findings out;
  out.rules = rules_;
  JsonWalker walker(*rules_, direction, policy, out);
  walker.walk(message, {});
  walker.finish();
  return out;
}

Findings Scanner::scanText(std::string_view text, Direction direction, const Policy& policy,
                           std::string_view context) const {
  Findings out;
  out.rules = rules_;
  JsonWalker walker(*rules_, direction, policy, out);
  walker.scanString(text, context, false);
  return out;
}

}  // namespace mcpgate::dlp
