#include <cstring>
#include <map>
#include <optional>
#include <string_view>

#include "common/read_file.h"
#include "dlp/cli.h"
#include "dlp/cli_document.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {
namespace {

std::string shorten(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out(s.substr(0, kMax));
  for (auto& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (s.size() > kMax) out += "...";
  return out;
}

// Files named by the arguments, or the shipped packs.
std::vector<std::filesystem::path> pathsOrDefault(std::span<char* const> args) {
  std::vector<std::filesystem::path> paths(args.begin(), args.end());
  if (paths.empty()) paths = defaultRulePaths();
  return paths;
}

// For a detector's example: what its signals scored, from the scan that reported every signal.
std::string scored(const Rule& detector, const Findings& f) {
  std::vector<const Rule*> seen;
  int score = 0;
  for (const auto& item : f.items) {
    const Rule& r = *item.rule;
    if (!r.isSignal() || r.detector != detector.id || std::ranges::find(seen, &r) != seen.end()) {
      continue;
    }
    seen.push_back(&r);
    score += r.weight;
  }
  std::string out =
      " (score " + std::to_string(score) + ", threshold " + std::to_string(detector.threshold);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    out += (i == 0 ? ": " : ", ") + seen[i]->id + " " + std::to_string(seen[i]->weight);
  }
  return out + ")";
}

}  // namespace

std::vector<ExampleFailure> runExamples(const std::shared_ptr<const RuleSet>& rules) {
  std::vector<ExampleFailure> failures;
  const Scanner scanner(rules);
  Policy policy;
  policy.all_directions = true;
  policy.signals = true;  // a signal's examples test the signal; its detector's test the score
  for (const auto& r : rules->rules()) {
    const auto where = [&](const Example& e) { return r.file + ":" + std::to_string(e.line); };
    // A rule keyed on whole JSON keys (`keyword_scope: json_key`) is tested on JSON: its examples
    // are JSON texts, scanned as a message is.
    const auto scan = [&](const Example& e) -> std::optional<Findings> {
      if (!r.keywords_json_key) return scanner.scanText(e.text, Direction::kRequest, policy);
      const auto doc = nlohmann::json::parse(e.text, nullptr, /*allow_exceptions=*/false);
      if (doc.is_discarded()) {
        failures.push_back({where(e), r.id, "example is not JSON (keyword_scope: json_key)"});
        return std::nullopt;
      }
      return scanner.scan(doc, Direction::kRequest, policy);
    };
    for (const auto& e : r.match) {
      const auto scanned = scan(e);
      if (!scanned) continue;
      const Findings& f = *scanned;
      std::vector<const Finding*> mine;
      for (const auto& item : f.items) {
        if (item.rule == &r) mine.push_back(&item);
      }
      if (mine.empty()) {
        failures.push_back({where(e), r.id,
                            "match example not matched: " + shorten(e.text) +
                                (r.is_detector ? scored(r, f) : std::string())});
      } else if (e.span && std::ranges::none_of(mine, [&](const Finding* x) {
                   return x->start == e.span->first && x->end == e.span->second;
                 })) {
        failures.push_back({where(e), r.id,
                            "match example has span [" + std::to_string(mine[0]->start) + ", " +
                                std::to_string(mine[0]->end) + "), expected [" +
                                std::to_string(e.span->first) + ", " +
                                std::to_string(e.span->second) + ")"});
      }
    }
    for (const auto& e : r.no_match) {
      const auto scanned = scan(e);
      if (!scanned) continue;
      const Findings& f = *scanned;
      if (std::ranges::any_of(f.items, [&](const Finding& x) { return x.rule == &r; })) {
        failures.push_back({where(e), r.id,
                            "no_match example matched: " + shorten(e.text) +
                                (r.is_detector ? scored(r, f) : std::string())});
      }
    }
  }
  return failures;
}

int runRulesTest(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  const auto paths = pathsOrDefault(args);
  auto rules = loadRules(paths);
  if (!rules) {
    err << "mcpgate rules test: " << rules.error().message << "\n";
    return kExitError;
  }
  std::size_t examples = 0, detectors = 0;
  for (const auto& r : (*rules)->rules()) {
    examples += r.match.size() + r.no_match.size();
    if (r.is_detector) ++detectors;
  }
  const auto failures = runExamples(*rules);
  for (const auto& f : failures) {
    err << f.where << ": rule '" << f.rule_id << "': " << f.message << "\n";
  }
  out << (*rules)->size() - detectors << " rules, " << detectors << " detectors, " << examples
      << " examples, " << failures.size() << " failed\n";
  return failures.empty() ? kExitClean : kExitFindings;
}

int runRulesLint(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  std::vector<std::filesystem::path> benign_dirs;
  std::vector<char*> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (std::strcmp(args[i], "--benign") == 0) {
      if (i + 1 >= args.size()) {
        err << "mcpgate rules lint: --benign needs a directory\n";
        return kExitError;
      }
      benign_dirs.emplace_back(args[++i]);
    } else {
      rest.push_back(args[i]);
    }
  }
  if (benign_dirs.empty()) {
    const auto dflt = std::filesystem::path(MCPGATE_SOURCE_DIR) / "tests" / "data" / "benign";
    std::error_code ec;
    if (std::filesystem::is_directory(dflt, ec)) benign_dirs.push_back(dflt);
  }
  std::size_t problems = 0;
  const auto problem = [&](const std::string& where, const std::string& what) {
    ++problems;
    err << where << ": " << what << "\n";
  };

  // Files one by one, so one broken file does not hide the others' problems.
  std::vector<Rule> all;
  std::map<std::string, std::string> seen;  // id -> where
  for (const auto& p : pathsOrDefault(rest)) {
    auto files = ruleFiles(p);
    if (!files) {
      err << "mcpgate rules lint: " << files.error().message << "\n";
      return kExitError;
    }
    for (const auto& f : *files) {
      auto rules = loadRuleFile(f);
      if (!rules) {
        ++problems;
        err << rules.error().message << "\n";
        continue;
      }
      for (auto& r : *rules) {
        if (const auto [it, ok] = seen.emplace(r.id, r.where()); !ok) {
          problem(r.where(), "duplicate rule id '" + r.id + "' (first at " + it->second + ")");
          continue;
        }
        if (r.match.empty()) problem(r.where(), "rule '" + r.id + "' has no match example");
        if (r.no_match.empty()) problem(r.where(), "rule '" + r.id + "' has no no_match example");
        if (r.description.empty()) problem(r.where(), "rule '" + r.id + "' has no description");
        all.push_back(std::move(r));
      }
    }
  }
  const std::size_t count = all.size();
  auto set = RuleSet::fromRules(std::move(all));
  if (!set) {
    err << set.error().message << "\n";
    return kExitError;
  }
  for (const auto& f : runExamples(*set))
    problem(f.where, "rule '" + f.rule_id + "': " + f.message);

  const Scanner scanner(*set);
  Policy policy;
  policy.all_directions = true;
  for (const auto& dir : benign_dirs) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const auto data = readWholeFile(it->path());
      if (!data) {
        problem(it->path().string(), "cannot read benign file");
        continue;
      }
      // As `mcpgate scan` reads it (JSON as JSON, with pointers and decoded escapes) and as plain
      // text too: the gateway sees JSON, a rule author's test sees text.
      const std::string file = it->path().string();
      const bool complete = scanDocument(
          scanner, policy, Direction::kRequest, file, *data, /*text_too=*/true,
                   [&](const Placed& p) {
                     const auto line = p.offset == std::string_view::npos
                                           ? std::size_t{0}
                                           : lineColumn(*data, p.offset).first;
                     std::string what = "rule '" + p.finding->rule->id + "' fires on benign " +
                                        file + ":" + std::to_string(line);
                     if (!p.finding->pointer.empty()) what += " at " + p.finding->pointer;
                     problem(p.finding->rule->where(), what);
                   });
      if (!complete) problem(file, "benign file could not be scanned (the DLP engine failed)");
    }
  }
  out << count << " rules, " << problems << " problems\n";
  return problems == 0 ? kExitClean : kExitFindings;
}

}  // namespace mcpgate::dlp
