#include "dlp/rule.h"

#include <hs/hs.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>

#include "common/read_file.h"
#include "dlp/hs_util.h"

namespace mcpgate::dlp {
namespace {

constexpr std::string_view kCategories[] = {"secret", "pii", "injection", "command", "custom"};
constexpr std::string_view kSeverities[] = {"low", "medium", "high", "critical"};
constexpr std::string_view kActions[] = {"log", "warn", "redact", "block"};
constexpr std::string_view kDirections[] = {"request", "response"};

template <typename E, std::size_t N>
std::optional<E> parseEnum(const std::string_view (&names)[N], std::string_view s) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<E>(i);
  }
  return std::nullopt;
}

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Parsing throws from deep inside yaml-cpp and from our own checks; one exception type carrying
// the position keeps the parser straight-line, and loadRuleText turns it into an Error.
struct ParseError {
  std::string message;
};

class Parser {
 public:
  explicit Parser(std::string_view name) : name_(name) {}

  std::vector<Rule> parse(const YAML::Node& root) {
    if (!root.IsMap()) fail(root, "a rule file is a map with a 'rules' list");
    for (const auto& kv : root) {
      const auto key = kv.first.as<std::string>();
      if (key != "rules" && key != "defaults" && key != "detector") {
        fail(kv.first, "unknown key '" + key + "'");
      }
    }
    Rule defaults;
    if (const auto d = root["defaults"]) {
      if (!d.IsMap()) fail(d, "'defaults' must be a map");
      for (const auto& kv : d) {
        const auto key = kv.first.as<std::string>();
        if (!applyCommon(defaults, key, kv.second))
          fail(kv.first, "'" + key + "' cannot be a default");
      }
    }
    const auto rules = root["rules"];
    if (!rules || !rules.IsSequence()) fail(root, "missing 'rules' list");
    std::vector<Rule> out;
    if (const auto d = root["detector"]) out.push_back(parseDetector(d, defaults));
    for (const auto& node : rules) {
      Rule r = parseRule(node, defaults);
      if (r.weight > 0 && r.detector.empty()) {
        if (out.empty() || !out.front().is_detector) {
          fail(node, "rule '" + r.id +
                         "' has a weight but names no detector (add 'detector: ID' "
                         "or a 'detector' block to the file)");
        }
        r.detector = out.front().id;
      }
      if (r.weight == 0 && !r.request && !r.response) {
        fail(node, "rule '" + r.id + "' applies to no direction");
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    throw ParseError{at(node.Mark()) + ": " + what};
  }
  [[nodiscard]] std::string at(const YAML::Mark& mark) const {
    return name_ + ":" + std::to_string(mark.line + 1);
  }

 private:
  std::string scalar(const YAML::Node& n, std::string_view what) const {
    if (!n.IsScalar()) fail(n, std::string(what) + " must be a string");
    return n.as<std::string>();
  }
  std::vector<std::string> strings(const YAML::Node& n, std::string_view what) const {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.as<std::string>());
      return out;
    }
    if (!n.IsSequence()) fail(n, std::string(what) + " must be a list of strings");
    for (const auto& item : n) out.push_back(scalar(item, what));
    return out;
  }
  std::size_t count(const YAML::Node& n, std::string_view what) const {
    if (!n.IsScalar()) fail(n, std::string(what) + " must be a number");
    try {
      const long v = n.as<long>();
      if (v < 0) fail(n, std::string(what) + " must not be negative");
      return static_cast<std::size_t>(v);
    } catch (const YAML::Exception&) {
      fail(n, std::string(what) + " must be a number");
    }
  }

  // Keys allowed both in a rule and in the file's defaults.
  bool applyCommon(Rule& r, const std::string& key, const YAML::Node& v) const {
    if (key == "category") {
      const auto c = parseCategory(scalar(v, key));
      if (!c) fail(v, "category must be one of secret, pii, injection, command, custom");
      r.category = *c;
    } else if (key == "severity") {
      const auto s = parseSeverity(scalar(v, key));
      if (!s) fail(v, "severity must be one of low, medium, high, critical");
      r.severity = *s;
    } else if (key == "action") {
      const auto a = parseAction(scalar(v, key));
      if (!a) fail(v, "action must be one of block, redact, warn, log");
      r.action = *a;
    } else if (key == "directions") {
      r.request = r.response = false;
      for (const auto& d : strings(v, key)) {
        if (d == "none") {
          // Only a detector signal: see Rule::weight.
        } else if (d == "both") {
          r.request = r.response = true;
        } else if (d == "request") {
          r.request = true;
        } else if (d == "response") {
          r.response = true;
        } else {
          fail(v, "directions must be request, response, both or none");
        }
      }
    } else if (key == "redact") {
      parseRedact(r, v);
    } else if (key == "detector") {
      r.detector = scalar(v, key);
    } else if (key == "flags") {
      // A rule's flags replace the file's default flags (`flags: []` clears them).
      r.caseless = r.dotall = r.multiline = false;
      for (const auto& f : strings(v, key)) {
        if (f == "caseless") {
          r.caseless = true;
        } else if (f == "dotall") {
          r.dotall = true;
        } else if (f == "multiline") {
          r.multiline = true;
        } else {
          fail(v, "unknown flag '" + f + "' (caseless, dotall, multiline)");
        }
      }
    } else {
      return false;
    }
    return true;
  }

  void parseRedact(Rule& r, const YAML::Node& v) const {
    if (v.IsScalar()) {
      const auto s = v.as<std::string>();
      if (s == "replace") {
        r.redact = RedactStyle::kReplace;
      } else if (s == "hash") {
        r.redact = RedactStyle::kHash;
      } else if (s == "mask") {
        r.redact = RedactStyle::kMask;
      } else {
        fail(v, "redact must be replace, mask, hash or {mask: N}");
      }
      return;
    }
    if (v.IsMap() && v["mask"]) {
      r.redact = RedactStyle::kMask;
      r.mask_keep = count(v["mask"], "mask");
      return;
    }
    fail(v, "redact must be replace, mask, hash or {mask: N}");
  }

  void parseValidator(Rule& r, const YAML::Node& v) const {
    if (v.IsScalar()) {
      const auto s = v.as<std::string>();
      if (s == "luhn") {
        r.validator = ValidatorKind::kLuhn;
      } else if (s == "iban") {
        r.validator = ValidatorKind::kIban;
      } else {
        fail(v, "validator must be luhn, iban or {entropy: BITS}");
      }
      return;
    }
    if (v.IsMap() && v["entropy"]) {
      r.validator = ValidatorKind::kEntropy;
      try {
        r.min_entropy = v["entropy"].as<double>();
      } catch (const YAML::Exception&) {
        fail(v["entropy"], "entropy must be a number of bits per character");
      }
      if (r.min_entropy <= 0 || r.min_entropy > 8) fail(v["entropy"], "entropy must be in (0, 8]");
      return;
    }
    fail(v, "validator must be luhn, iban or {entropy: BITS}");
  }

  Example parseExample(const YAML::Node& n) const {
    Example e;
    e.line = n.Mark().line + 1;
    if (n.IsScalar()) {
      e.text = n.as<std::string>();
      return e;
    }
    if (!n.IsMap() || !n["text"])
      fail(n, "an example is a string or {text: ..., span: [start, end]}");
    e.text = scalar(n["text"], "text");
    if (const auto s = n["span"]) {
      if (!s.IsSequence() || s.size() != 2) fail(s, "span must be [start, end]");
      e.span = {count(s[0], "span"), count(s[1], "span")};
      if (e.span->first >= e.span->second || e.span->second > e.text.size()) {
        fail(s, "span is outside the example text");
      }
    }
    return e;
  }

  Rule parseRule(const YAML::Node& n, const Rule& defaults) const {
    if (!n.IsMap()) fail(n, "a rule is a map");
    Rule r = parseRuleFields(n, defaults);
    r.file = name_;
    r.line = n.Mark().line + 1;
    if (r.id.empty()) fail(n, "rule has no 'id'");
    if (r.pattern.empty()) fail(n, "rule '" + r.id + "' has no 'pattern'");
    if (r.max_length != 0 && r.max_length < r.min_length) {
      fail(n, "rule '" + r.id + "': max_length is below min_length");
    }
    if (auto ok = checkRule(r); !ok) throw ParseError{ok.error().message};
    return r;
  }

  Rule parseRuleFields(const YAML::Node& n, const Rule& defaults) const {
    Rule r = defaults;
    r.file = name_;
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      const auto& v = kv.second;
      if (applyCommon(r, key, v)) continue;
      if (key == "id") {
        r.id = scalar(v, key);
      } else if (key == "description") {
        r.description = scalar(v, key);
      } else if (key == "pattern") {
        r.pattern = scalar(v, key);
      } else if (key == "prefilter") {
        r.prefilter = scalar(v, key);
      } else if (key == "gate") {
        if (!v.IsMap() || !v["run"] || !v["count"] || !v["min"]) {
          fail(v, "gate is {run: '[...]', count: '[...]', min: N}");
        }
        for (const auto& g : v) {
          const auto k = g.first.as<std::string>();
          if (k != "run" && k != "count" && k != "min")
            fail(g.first, "gate has only run, count, min");
        }
        r.gate = GateSpec{scalar(v["run"], "gate run"), scalar(v["count"], "gate count"),
                          count(v["min"], "gate min")};
      } else if (key == "threshold" && r.is_detector) {
        const std::size_t t = count(v, key);
        if (t == 0 || t > kMaxWeight) fail(v, "threshold must be 1.." + std::to_string(kMaxWeight));
        r.threshold = static_cast<int>(t);
      } else if (key == "weight") {
        const std::size_t w = count(v, key);
        if (w == 0 || w > kMaxWeight) fail(v, "weight must be 1.." + std::to_string(kMaxWeight));
        r.weight = static_cast<int>(w);
      } else if (key == "secret_group") {
        r.secret_group = static_cast<int>(count(v, key));
      } else if (key == "keywords") {
        for (auto& k : strings(v, key)) r.keywords.push_back(lower(std::move(k)));
      } else if (key == "min_length") {
        r.min_length = count(v, key);
      } else if (key == "max_length") {
        r.max_length = count(v, key);
      } else if (key == "validator") {
        parseValidator(r, v);
      } else if (key == "exclude") {
        r.exclude = strings(v, key);
      } else if (key == "keyword_scope") {
        const std::string scope = scalar(v, key);
        if (scope != "json_key" && scope != "near") fail(v, "keyword_scope is near or json_key");
        r.keywords_json_key = scope == "json_key";
      } else if (key == "exclude_match") {
        r.exclude_match = strings(v, key);
      } else if (key == "stopwords") {
        for (auto& k : strings(v, key)) r.stopwords.push_back(lower(std::move(k)));
      } else if (key == "examples") {
        if (!v.IsMap()) fail(v, "examples must be a map with 'match' and 'no_match'");
        for (const auto& ex : v) {
          const auto which = ex.first.as<std::string>();
          if (which != "match" && which != "no_match") {
            fail(ex.first, "examples has only 'match' and 'no_match'");
          }
          if (!ex.second.IsSequence()) fail(ex.second, which + " must be a list");
          auto& list = which == "match" ? r.match : r.no_match;
          for (const auto& item : ex.second) list.push_back(parseExample(item));
        }
      } else {
        fail(kv.first, "unknown key '" + key + "' in rule");
      }
    }
    return r;
  }

  // The file's `detector:` block: an id, a threshold, where it runs, what it does, and examples
  // that test the threshold (a match example must score at least the threshold).
  Rule parseDetector(const YAML::Node& n, const Rule& defaults) const {
    if (!n.IsMap()) fail(n, "detector is a map {id, description, threshold, examples, ...}");
    Rule base;
    base.category = defaults.category;
    base.severity = defaults.severity;
    base.action = defaults.action;
    base.is_detector = true;
    Rule r = parseRuleFields(n, base);
    r.line = n.Mark().line + 1;
    if (r.id.empty()) fail(n, "detector has no 'id'");
    if (r.threshold == 0) fail(n, "detector '" + r.id + "' has no 'threshold'");
    if (r.weight != 0 || !r.detector.empty()) fail(n, "a detector has no weight or detector");
    if (!r.request && !r.response) fail(n, "detector '" + r.id + "' applies to no direction");
    if (auto ok = checkRule(r); !ok) throw ParseError{ok.error().message};
    return r;
  }

  std::string name_;
};

}  // namespace

re2::RE2::Options re2Options(const Rule& r) {
  re2::RE2::Options o;
  // Hyperscan scans bytes (no HS_FLAG_UTF8, which is undefined on invalid UTF-8); RE2 must see the
  // same bytes or the two engines would disagree on what `.` and `[^x]` consume.
  o.set_encoding(re2::RE2::Options::EncodingLatin1);
  o.set_case_sensitive(!r.caseless);
  o.set_dot_nl(r.dotall);
  o.set_never_nl(false);
  o.set_log_errors(false);
  return o;
}

std::string_view toString(Category c) { return kCategories[static_cast<int>(c)]; }
std::string_view toString(Severity s) { return kSeverities[static_cast<int>(s)]; }
std::string_view toString(Action a) { return kActions[static_cast<int>(a)]; }
std::string_view toString(Direction d) { return kDirections[static_cast<int>(d)]; }
std::optional<Category> parseCategory(std::string_view s) {
  return parseEnum<Category>(kCategories, s);
}
std::optional<Severity> parseSeverity(std::string_view s) {
  return parseEnum<Severity>(kSeverities, s);
}
std::optional<Action> parseAction(std::string_view s) { return parseEnum<Action>(kActions, s); }
std::optional<Direction> parseDirection(std::string_view s) {
  return parseEnum<Direction>(kDirections, s);
}

std::string Rule::where() const { return file + ":" + std::to_string(line); }

std::string hsScanExpression(const Rule& r) {
  if (r.keywordGated()) {
    std::string out = "(?i)(?:";
    for (std::size_t k = 0; k < r.keywords.size(); ++k) {
      if (k != 0) out.push_back('|');
      for (const char c : r.keywords[k]) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ' ';
        if (!plain) out.push_back('\\');
        out.push_back(c);
      }
    }
    out.push_back(')');
    return out;
  }
  return r.prefilter.empty() ? hsExpression(r.pattern) : r.prefilter;
}

std::size_t gateReach(const Rule& r) {
  std::size_t total = 0;
  for (const std::string& expr : {r.pattern, hsScanExpression(r)}) {
    hs_expr_info_t* raw_info = nullptr;
    hs_compile_error_t* raw_err = nullptr;
    if (hs_expression_info(expr.c_str(), hsFlags(r), &raw_info, &raw_err) != HS_SUCCESS) {
      const HsCompileError err(raw_err);
      return 0;
    }
    const HsExprInfo info(raw_info);
    if (info->max_width == UINT_MAX) return 0;
    total += info->max_width;
  }
  return total <= kMaxGateReach ? total : 0;
}

std::string re2Pattern(const Rule& r) {
  return r.multiline ? "(?m)" + re2Expression(r.pattern) : re2Expression(r.pattern);
}

std::unique_ptr<re2::RE2> compileRe2(const Rule& r) {
  return std::make_unique<re2::RE2>(re2Pattern(r), re2Options(r));
}

std::expected<void, Error> checkRule(const Rule& r) {
  const auto prefix = r.where() + ": rule '" + r.id + "': ";
  if (r.is_detector) {
    if (r.threshold <= 0) return std::unexpected(Error{prefix + "a detector needs a threshold"});
    if (!r.pattern.empty()) return std::unexpected(Error{prefix + "a detector has no pattern"});
    return {};
  }
  if (const auto at = leadingZeroRepeat(r.pattern); at != std::string_view::npos) {
    return std::unexpected(Error{prefix + "the repeat count at index " + std::to_string(at) +
                                 " has a leading zero (RE2 reads it as text, Hyperscan as a "
                                 "repeat): write it without the zero"});
  }
  // RE2 refuses repeats over 1000 and programs over its memory budget in microseconds; Hyperscan
  // takes seconds and a gigabyte to refuse `(?:\d[ -]?){6819}` (the rule_load fuzzer's slowest
  // inputs), so those two errors are asked of RE2 first. Other errors keep Hyperscan's message,
  // which says where in the pattern it is.
  const auto tooLarge = [](const re2::RE2& x) {
    return x.error_code() == re2::RE2::ErrorRepeatSize ||
           x.error_code() == re2::RE2::ErrorPatternTooLarge;
  };
  const auto re = compileRe2(r);
  if (tooLarge(*re)) {
    return std::unexpected(Error{prefix + "RE2 rejects the pattern: " + re->error()});
  }
  hs_expr_info_t* raw_info = nullptr;
  hs_compile_error_t* raw_err = nullptr;
  if (hs_expression_info(r.pattern.c_str(), hsFlags(r), &raw_info, &raw_err) != HS_SUCCESS) {
    const HsCompileError err(raw_err);
    return std::unexpected(
        Error{prefix + "Hyperscan rejects the pattern: " + (err ? err->message : "unknown error")});
  }
  const HsExprInfo info(raw_info);
  if (info->min_width == 0) {
    return std::unexpected(Error{prefix + "the pattern matches the empty string"});
  }
  if (r.keywordGated() && r.keywords.empty()) {
    return std::unexpected(Error{prefix + "'prefilter: keywords' needs a keywords list"});
  }
  if (r.keywords_json_key && !r.keywordGated()) {
    return std::unexpected(Error{prefix + "'keyword_scope: json_key' needs 'prefilter: keywords'"});
  }
  if (!r.prefilter.empty()) {
    hs_expr_info_t* raw_pre = nullptr;
    hs_compile_error_t* raw_pre_err = nullptr;
    const std::string pre_expr = hsScanExpression(r);
    const re2::RE2 pre_re(pre_expr, re2Options(r));
    if (tooLarge(pre_re)) {
      return std::unexpected(Error{prefix + "RE2 rejects the prefilter: " + pre_re.error()});
    }
    if (hs_expression_info(pre_expr.c_str(), hsFlags(r), &raw_pre, &raw_pre_err) != HS_SUCCESS) {
      const HsCompileError err(raw_pre_err);
      return std::unexpected(Error{
          prefix + "Hyperscan rejects the prefilter: " + (err ? err->message : "unknown error")});
    }
    const HsExprInfo pre(raw_pre);
    if (pre->min_width == 0) {
      return std::unexpected(Error{prefix + "the prefilter matches the empty string"});
    }
  }
  if (r.gate) {
    if (r.keywordGated()) {
      return std::unexpected(
          Error{prefix + "a gate cannot be combined with 'prefilter: keywords'"});
    }
    Gates gates;
    if (auto ok = gates.add(*r.gate); !ok) return std::unexpected(Error{prefix + ok.error()});
    if (gateReach(r) == 0) {
      return std::unexpected(Error{prefix +
                                   "a gated rule needs a pattern and prefilter of bounded "
                                   "width (at most " +
                                   std::to_string(kMaxGateReach) + " bytes together)"});
    }
  }
  if (!re->ok()) return std::unexpected(Error{prefix + "RE2 rejects the pattern: " + re->error()});
  if (r.secret_group > 9) return std::unexpected(Error{prefix + "secret_group must be 0..9"});
  if (r.secret_group > re->NumberOfCapturingGroups()) {
    return std::unexpected(Error{prefix + "secret_group " + std::to_string(r.secret_group) +
                                 " but the pattern has " +
                                 std::to_string(re->NumberOfCapturingGroups()) + " groups"});
  }
  for (const auto* list : {&r.exclude, &r.exclude_match}) {
    for (const auto& ex : *list) {
      re2::RE2 x(ex, re2Options(r));
      if (x.ok()) continue;
      std::string message = prefix;
      message += list == &r.exclude ? "bad exclude '" : "bad exclude_match '";
      message += ex;
      message += "': ";
      message += x.error();
      return std::unexpected(Error{std::move(message)});
    }
  }
  return {};
}

std::expected<std::vector<Rule>, Error> loadRuleText(std::string_view yaml, std::string_view name) {
  Parser parser(name);
  try {
    return parser.parse(YAML::Load(std::string(yaml)));
  } catch (const ParseError& e) {
    return std::unexpected(Error{e.message});
  } catch (const YAML::Exception& e) {
    return std::unexpected(Error{parser.at(e.mark) + ": " + e.msg});
  } catch (const std::exception& e) {
    return std::unexpected(Error{std::string(name) + ": " + e.what()});
  }
}

std::expected<std::vector<Rule>, Error> loadRuleFile(const std::filesystem::path& path) {
  const auto bytes = readWholeFile(path);
  if (!bytes) return std::unexpected(Error{path.string() + ": cannot open rule file"});
  return loadRuleText(*bytes, path.string());
}

std::expected<std::vector<std::filesystem::path>, Error> ruleFiles(
    const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return std::vector{path};
  if (!std::filesystem::is_directory(path, ec)) {
    return std::unexpected(Error{path.string() + ": no such rule file or directory"});
  }
  std::vector<std::filesystem::path> out;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto ext = it->path().extension();
    if (it->is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) out.push_back(it->path());
  }
  if (ec) return std::unexpected(Error{path.string() + ": " + ec.message()});
  std::ranges::sort(out);
  return out;
}

}  // namespace mcpgate::dlp
