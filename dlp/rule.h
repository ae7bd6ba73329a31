#pragma once

// The rule model and the YAML loader. A rule file is parsed into plain values here; compiling
// them into one database is RuleSet's job (rule_set.h).

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlp/error.h"
#include "dlp/gate.h"

namespace mcpgate::dlp {

enum class Category : std::uint8_t { kSecret, kPii, kInjection, kCommand, kCustom };
enum class Severity : std::uint8_t { kLow, kMedium, kHigh, kCritical };
// Ordered by strength: the gateway applies the strongest action of a message's findings.
enum class Action : std::uint8_t { kLog, kWarn, kRedact, kBlock };
enum class Direction : std::uint8_t { kRequest, kResponse };
enum class RedactStyle : std::uint8_t { kReplace, kMask, kHash };
enum class ValidatorKind : std::uint8_t { kNone, kLuhn, kIban, kEntropy };

// Keywords count if they occur this far before a match (a key name, "token:", a provider name
// on the same line) or shortly after it.
inline constexpr std::size_t kKeywordBefore = 256;
inline constexpr std::size_t kKeywordAfter = 32;
inline constexpr std::string_view kKeywordPrefilter = "keywords";
// Largest signal weight and detector threshold.
inline constexpr std::size_t kMaxWeight = 1000;

[[nodiscard]] std::string_view toString(Category c);
[[nodiscard]] std::string_view toString(Severity s);
[[nodiscard]] std::string_view toString(Action a);
[[nodiscard]] std::string_view toString(Direction d);
[[nodiscard]] std::optional<Category> parseCategory(std::string_view s);
[[nodiscard]] std::optional<Severity> parseSeverity(std::string_view s);
[[nodiscard]] std::optional<Action> parseAction(std::string_view s);
[[nodiscard]] std::optional<Direction> parseDirection(std::string_view s);

struct Example {
  std::string text;
  // Expected [start, end) byte span of the finding in `text`, when the rule author gave one.
  std::optional<std::pair<std::size_t, std::size_t>> span;
  int line = 0;
};

struct Rule {
  std::string id;
  std::string description;
  Category category = Category::kCustom;
  Severity severity = Severity::kMedium;

  std::string pattern;
  // Optional cheaper expression for Hyperscan alone, for patterns whose rare part is not at the
  // front (`verb ... ~/.ssh/id_rsa`): it must match near every match of `pattern` (within its
  // width), RE2 then confirms with `pattern`. The rule's examples check this.
  // `prefilter: keywords` (kKeywordPrefilter) makes Hyperscan look for the rule's keywords alone:
  // for digit patterns that need a keyword anyway (US phone numbers), which Hyperscan would
  // otherwise have to start at every byte. RE2 then searches the keyword window, and a string
  // whose JSON key carries a keyword is searched whole.
  std::string prefilter;
  // Optional structural gate (gate.h) for rules with no literal at all: what every match must
  // contain, e.g. a run of [0-9 -] holding 15 digits. The rule is then compiled into a second
  // Hyperscan database that runs only on windows around such runs. Like `prefilter`, the author
  // states it and the rule's examples check it.
  std::optional<GateSpec> gate;
  bool caseless = false;
  bool dotall = false;
  bool multiline = false;
  // Capture group whose text is the secret (0: the whole match). Validators, length limits,
  // excludes and redaction all apply to this group.
  int secret_group = 0;

  std::vector<std::string> keywords;  // lower-cased; at least one must appear near the match
  // `keyword_scope: json_key`: a keyword counts only as the whole JSON key the string is the value
  // of (compared ignoring case, `_` and `-`: `session_token` is `sessionToken`), never in text.
  // For bare names such as `token` or `secret`, which as substrings would take `nextPageToken`.
  // Such a rule (with `prefilter: keywords`) is left out of the Hyperscan databases: only the
  // JSON walk's key pass runs it.
  bool keywords_json_key = false;
  std::size_t min_length = 0;
  std::size_t max_length = 0;  // 0: no limit
  ValidatorKind validator = ValidatorKind::kNone;
  double min_entropy = 0.0;            // bits per character, for ValidatorKind::kEntropy
  std::vector<std::string> exclude;    // RE2 patterns; a match in the secret vetoes it
  std::vector<std::string> stopwords;  // lower-cased substrings that veto the secret
  // RE2 patterns; a match anywhere in the rule's whole match (not only the secret) vetoes it:
  // for rules whose name part is open (`<anything> key = …`) and must not be `cache key`.
  std::vector<std::string> exclude_match;

  // Where the rule reports on its own. A detector signal may report nowhere (`directions: none`):
  // it then only adds its weight to its detector's score.
  bool request = true;
  bool response = true;
  Action action = Action::kWarn;

  // Detectors (the injection detector): a rule with a `weight` is a signal of the detector named
  // by `detector` (by default the detector block of its own file). In each string the detector
  // runs on (its own `directions`), the weights of the distinct signals that matched add up; at
  // `threshold` or more the detector reports one finding carrying those signals. A detector is a
  // Rule too (ids, actions, policies and audit lines treat it as one) with no pattern.
  int weight = 0;
  std::string detector;
  bool is_detector = false;
  int threshold = 0;
  RedactStyle redact = RedactStyle::kReplace;
  std::size_t mask_keep = 4;

  std::vector<Example> match;
  std::vector<Example> no_match;

  std::string file;
  int line = 0;

  [[nodiscard]] bool isSignal() const { return weight > 0 && !detector.empty(); }
  [[nodiscard]] bool keywordGated() const { return prefilter == kKeywordPrefilter; }
  [[nodiscard]] bool appliesTo(Direction d) const {
    return d == Direction::kRequest ? request : response;
  }
  // "file:line" for messages.
  [[nodiscard]] std::string where() const;
};

// Parses one rule file. Every pattern is checked in both Hyperscan and RE2 here, so a bad rule is
// reported with its file and line before anything is compiled.
[[nodiscard]] std::expected<std::vector<Rule>, Error> loadRuleFile(
    const std::filesystem::path& path);
// Same, from YAML text; `name` stands in for the file name in messages.
[[nodiscard]] std::expected<std::vector<Rule>, Error> loadRuleText(std::string_view yaml,
                                                                   std::string_view name);
// Checks one rule's pattern, excludes and group in both engines; used by the loaders and by
// callers that build rules in code.
[[nodiscard]] std::expected<void, Error> checkRule(const Rule& rule);
// The rule files a path names: the file itself, or every *.yaml / *.yml below a directory, sorted
// so that load order (and so the database) does not depend on the file system.
[[nodiscard]] std::expected<std::vector<std::filesystem::path>, Error> ruleFiles(
    const std::filesystem::path& path);

}  // namespace mcpgate::dlp
