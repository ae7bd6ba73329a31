#include "dlp/rule_cache.h"

#include <hs/hs.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/digest.h"
#include "common/encoding.h"

namespace mcpgate::dlp {
namespace {

// Bump when the layout below changes.
constexpr std::string_view kMagic = "mcpgate-rules-v4";

// Every field of Rule is written below. A new field must be added to put()/get() (and kMagic
// bumped), or a warm start would silently drop it: this assertion makes that a build error.
static_assert(sizeof(Rule) == 512, "Rule changed: add the new field to dlp/rule_cache.cc");

class Writer {
 public:
  void reserve(std::size_t bytes) { out_.reserve(bytes); }
  void u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void f64(double d) {
    std::uint64_t v = 0;
    std::memcpy(&v, &d, sizeof v);
    u64(v);
  }
  void strs(const std::vector<std::string>& v) {
    u64(v.size());
    for (const auto& s : v) str(s);
  }
  void examples(const std::vector<Example>& v) {
    u64(v.size());
    for (const auto& e : v) {
      str(e.text);
      u64(e.span ? 1 : 0);
      u64(e.span ? e.span->first : 0);
      u64(e.span ? e.span->second : 0);
      u64(static_cast<std::uint64_t>(e.line));
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return ok_ && in_.empty(); }

  std::uint64_t u64() {
    std::uint64_t v = 0;
    if (in_.size() < sizeof v) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&v, in_.data(), sizeof v);
    in_.remove_prefix(sizeof v);
    return v;
  }
  std::string str() {
    const auto n = u64();
    if (n > in_.size()) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  double f64() {
    const std::uint64_t v = u64();
    double d = 0;
    std::memcpy(&d, &v, sizeof d);
    return d;
  }
  // A count that cannot exceed what is left (each element takes at least 8 bytes).
  std::size_t count() {
    const auto n = u64();
    if (n > in_.size() / 8) ok_ = false;
    return ok_ ? n : 0;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> v(count());
    for (auto& s : v) s = str();
    return v;
  }
  std::vector<Example> examples() {
    std::vector<Example> v(count());
    for (auto& e : v) {
      e.text = str();
      const bool has = u64() != 0;
      const auto a = u64();
      const auto b = u64();
      if (has) e.span = std::pair<std::size_t, std::size_t>(a, b);
      e.line = static_cast<int>(u64());
    }
    return v;
  }
  template <typename E>
  E enumeration(E last) {
    const auto v = u64();
    if (v > static_cast<std::uint64_t>(last)) ok_ = false;
    return static_cast<E>(v);
  }

 private:
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

std::string sha256Hex(std::string_view data) { return common::toHex(common::sha256(data)); }

std::string ruleFilesKey(
    const std::vector<std::pair<std::filesystem::path, std::string_view>>& files) {
  // Hashed as Writer::str would lay the pieces out, streamed: the megabyte of rule files is not
  // copied into one string first.
  common::Sha256Stream h;
  const auto str = [&h](std::string_view s) {
    const std::uint64_t n = s.size();
    h.update(std::string_view(reinterpret_cast<const char*>(&n), sizeof n));
    h.update(s);
  };
  str(kMagic);
  str(hs_version());
  for (const auto& [path, bytes] : files) {
    str(path.string());
    str(bytes);
  }
  return common::toHex(h.finish());
}

std::string serializeRules(const CachedRules& c) {
  Writer w;
  w.str(kMagic);
  w.u64(c.rules.size());
  for (std::size_t i = 0; i < c.rules.size(); ++i) {
    const Rule& r = c.rules[i];
    w.str(r.id);
    w.str(r.description);
    w.u64(static_cast<std::uint64_t>(r.category));
    w.u64(static_cast<std::uint64_t>(r.severity));
    w.str(r.pattern);
    w.str(r.prefilter);
    w.u64(r.gate ? 1 : 0);
    if (r.gate) {
      w.str(r.gate->run);
      w.str(r.gate->count);
      w.u64(r.gate->min);
    }
    w.u64((r.caseless ? 1 : 0) | (r.dotall ? 2 : 0) | (r.multiline ? 4 : 0) | (r.request ? 8 : 0) |
          (r.response ? 16 : 0) | (r.keywords_json_key ? 32 : 0));
    w.u64(static_cast<std::uint64_t>(r.secret_group));
    w.strs(r.keywords);
    w.u64(r.min_length);
    w.u64(r.max_length);
    w.u64(static_cast<std::uint64_t>(r.validator));
    w.f64(r.min_entropy);
    w.strs(r.exclude);
    w.strs(r.stopwords);
    w.strs(r.exclude_match);
    w.u64(static_cast<std::uint64_t>(r.action));
    w.u64(static_cast<std::uint64_t>(r.redact));
    w.u64(r.mask_keep);
    w.u64(static_cast<std::uint64_t>(r.weight));
    w.str(r.detector);
    w.u64(r.is_detector ? 1 : 0);
    w.u64(static_cast<std::uint64_t>(r.threshold));
    w.examples(r.match);
    w.examples(r.no_match);
    w.str(r.file);
    w.u64(static_cast<std::uint64_t>(r.line));
    w.u64(c.windows[i]);
  }
  return w.take();
}

std::optional<CachedRules> deserializeRules(std::string_view blob) {
  Reader in(blob);
  if (in.str() != kMagic) return std::nullopt;
  CachedRules c;
  const std::size_t n = in.count();
  c.rules.resize(n);
  c.windows.resize(n);
  for (std::size_t i = 0; i < n && in.ok(); ++i) {
    Rule& r = c.rules[i];
    r.id = in.str();
    r.description = in.str();
    r.category = in.enumeration(Category::kCustom);
    r.severity = in.enumeration(Severity::kCritical);
    r.pattern = in.str();
    r.prefilter = in.str();
    if (in.u64() != 0) {
      GateSpec g;
      g.run = in.str();
      g.count = in.str();
      g.min = in.u64();
      r.gate = std::move(g);
    }
    const auto flags = in.u64();
    r.caseless = (flags & 1) != 0;
    r.dotall = (flags & 2) != 0;
    r.multiline = (flags & 4) != 0;
    r.request = (flags & 8) != 0;
    r.response = (flags & 16) != 0;
    r.keywords_json_key = (flags & 32) != 0;
    r.secret_group = static_cast<int>(in.u64());
    r.keywords = in.strs();
    r.min_length = in.u64();
    r.max_length = in.u64();
    r.validator = in.enumeration(ValidatorKind::kEntropy);
    r.min_entropy = in.f64();
    r.exclude = in.strs();
    r.stopwords = in.strs();
    r.exclude_match = in.strs();
    r.action = in.enumeration(Action::kBlock);
    r.redact = in.enumeration(RedactStyle::kHash);
    r.mask_keep = in.u64();
    r.weight = static_cast<int>(in.u64());
    r.detector = in.str();
    r.is_detector = in.u64() != 0;
    r.threshold = static_cast<int>(in.u64());
    r.match = in.examples();
    r.no_match = in.examples();
    r.file = in.str();
    r.line = static_cast<int>(in.u64());
    c.windows[i] = in.u64();
  }
  if (!in.done()) return std::nullopt;
  return c;
}

}  // namespace mcpgate::dlp
