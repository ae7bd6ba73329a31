#include "dlp/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "dlp/redact.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {
namespace {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitError = 2;

std::optional<std::string> readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

std::string readStdin() {
  std::ostringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
}

// Bytes of text files only: a NUL in the first 8 KiB means binary, as git decides it.
bool looksBinary(std::string_view data) {
  return data.substr(0, 8192).find('\0') != std::string_view::npos;
}

std::pair<std::size_t, std::size_t> lineColumn(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// Compiled databases are cached so that running `mcpgate scan` again does not recompile the
// packs: $MCPGATE_CACHE_DIR (empty disables), else $XDG_CACHE_HOME/mcpgate, else ~/.cache/mcpgate.
std::filesystem::path cacheDir() {
  if (const char* dir = std::getenv("MCPGATE_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "mcpgate";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache" / "mcpgate";
  }
  return {};
}

std::expected<std::shared_ptr<const RuleSet>, Error> loadRules(
    const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) {
    return std::unexpected(Error{"no rules: pass --rules PATH or set MCPGATE_RULES"});
  }
  return RuleSet::load(paths, LoadOptions{cacheDir()});
}

struct ScanOptions {
  std::vector<std::filesystem::path> rules;
  std::vector<std::string> inputs;
  bool json = false;
  std::optional<Direction> direction;
};

class ScanReporter {
 public:
  ScanReporter(const Scanner& scanner, const ScanOptions& o, std::ostream& out)
      : scanner_(scanner), opts_(o), out_(out) {
    policy_.all_directions = !o.direction.has_value();
  }

  std::size_t findings = 0;

  void scanData(const std::string& name, const std::string& data) {
    const Direction dir = opts_.direction.value_or(Direction::kRequest);
    // A file that parses as JSON is scanned as JSON: per string, with pointers, decoded escapes.
    const auto doc = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_discarded() && (doc.is_object() || doc.is_array())) {
      const Findings f = scanner_.scan(doc, dir, policy_);
      for (const auto& item : f.items) {
        const std::string value = stringAt(doc, item);
        const std::string_view secret = std::string_view(value).substr(
            std::min(item.start, value.size()), item.end - std::min(item.start, item.end));
        report(name, data, item, secret, locate(data, secret));
      }
      return;
    }
    const Findings f = scanner_.scanText(data, dir, policy_);
    for (const auto& item : f.items) {
      const auto secret = std::string_view(data).substr(item.start, item.end - item.start);
      report(name, data, item, secret, item.start);
    }
  }

 private:
  static std::string stringAt(const nlohmann::json& doc, const Finding& f) {
    try {
      const nlohmann::json::json_pointer ptr(f.pointer);
      if (f.in_key) return ptr.back();
      const auto& v = doc.at(ptr);
      return v.is_string() ? v.get<std::string>() : std::string();
    } catch (const nlohmann::json::exception&) {
      return {};
    }
  }

  // Where a secret found in a JSON string sits in the file: where it appears verbatim, which is
  // the case unless JSON escapes hide it. npos: unknown (line and column are then 0).
  static std::size_t locate(std::string_view data, std::string_view secret) {
    if (secret.empty()) return std::string_view::npos;
    return data.find(secret);
  }

  void report(const std::string& name, std::string_view data, const Finding& f,
              std::string_view secret, std::size_t offset) {
    ++findings;
    std::size_t line = 0, col = 0;
    if (offset != std::string_view::npos) std::tie(line, col) = lineColumn(data, offset);
    const std::string preview = maskedPreview(secret);
    if (opts_.json) {
      nlohmann::json j = {{"file", name},
                          {"rule", f.rule->id},
                          {"category", toString(f.rule->category)},
                          {"severity", toString(f.rule->severity)},
                          {"action", toString(f.action)},
                          {"line", line},
                          {"column", col},
                          {"start", f.start},
                          {"end", f.end},
                          {"decoded_by", f.decoded_by},
                          {"preview", preview}};
      if (!f.pointer.empty() || f.in_key) j["pointer"] = f.pointer;
      if (f.in_key) j["in_key"] = true;
      out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return;
    }
    out_ << name << ":" << line << ":" << col << ": " << toString(f.rule->severity) << " "
         << f.rule->id << " (" << toString(f.rule->category) << ", " << toString(f.action) << ")";
    if (!f.pointer.empty()) out_ << " at " << f.pointer << (f.in_key ? " (key)" : "");
    if (!f.decoded_by.empty()) out_ << " decoded by " << f.decoded_by;
    out_ << ": " << preview << "\n";
  }

  const Scanner& scanner_;
  const ScanOptions& opts_;
  std::ostream& out_;
  Policy policy_;
};

void usageScan(std::ostream& err) {
  err << "usage: mcpgate scan [--rules PATH]... [--json] [--direction request|response] "
         "FILE|DIR|-...\n";
}

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

}  // namespace

std::vector<std::filesystem::path> defaultRulePaths() {
  if (const char* env = std::getenv("MCPGATE_RULES"); env != nullptr && *env != '\0') {
    return {std::filesystem::path(env)};
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path() / ".." / "share" / "mcpgate" / "rules";
    if (std::filesystem::is_directory(installed, ec)) return {installed.lexically_normal()};
  }
  const std::filesystem::path source = std::filesystem::path(MCPGATE_SOURCE_DIR) / "rules";
  if (std::filesystem::is_directory(source, ec)) return {source};
  return {};
}

int runScanCommand(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  ScanOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--rules" || a == "--direction") {
      if (i + 1 >= args.size()) {
        err << "mcpgate scan: " << a << " needs a value\n";
        usageScan(err);
        return kExitError;
      }
      const std::string_view v = args[++i];
      if (a == "--rules") {
        o.rules.emplace_back(v);
      } else if (auto d = parseDirection(v)) {
        o.direction = d;
      } else {
        err << "mcpgate scan: --direction must be request or response\n";
        return kExitError;
      }
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "-h" || a == "--help") {
      usageScan(out);
      return kExitClean;
    } else if (a.starts_with("--")) {
      err << "mcpgate scan: unknown option " << a << "\n";
      usageScan(err);
      return kExitError;
    } else {
      o.inputs.emplace_back(a);
    }
  }
  if (o.inputs.empty()) {
    usageScan(err);
    return kExitError;
  }
  if (o.rules.empty()) o.rules = defaultRulePaths();
  auto rules = loadRules(o.rules);
  if (!rules) {
    err << "mcpgate scan: " << rules.error().message << "\n";
    return kExitError;
  }
  const Scanner scanner(*rules);
  ScanReporter reporter(scanner, o, out);
  bool failed = false;
  const auto scanFile = [&](const std::filesystem::path& p) {
    auto data = readFile(p);
    if (!data) {
      err << "mcpgate scan: " << p.string() << ": cannot read\n";
      failed = true;
      return;
    }
    if (!looksBinary(*data)) reporter.scanData(p.string(), *data);
  };
  for (const auto& in : o.inputs) {
    if (in == "-") {
      reporter.scanData("-", readStdin());
      continue;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) {
      std::vector<std::filesystem::path> files;
      for (auto it = std::filesystem::recursive_directory_iterator(in, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec)) files.push_back(it->path());
      }
      if (ec) {
        err << "mcpgate scan: " << in << ": " << ec.message() << "\n";
        failed = true;
      }
      std::ranges::sort(files);
      for (const auto& f : files) scanFile(f);
    } else if (std::filesystem::exists(in, ec)) {
      scanFile(in);
    } else {
      err << "mcpgate scan: " << in << ": no such file or directory\n";
      failed = true;
    }
  }
  if (failed) return kExitError;
  return reporter.findings > 0 ? kExitFindings : kExitClean;
}

std::vector<ExampleFailure> runExamples(const std::shared_ptr<const RuleSet>& rules) {
  std::vector<ExampleFailure> failures;
  const Scanner scanner(rules);
  Policy policy;
  policy.all_directions = true;
  for (const auto& r : rules->rules()) {
    const auto where = [&](const Example& e) { return r.file + ":" + std::to_string(e.line); };
    for (const auto& e : r.match) {
      const Findings f = scanner.scanText(e.text, Direction::kRequest, policy);
      std::vector<const Finding*> mine;
      for (const auto& item : f.items) {
        if (item.rule == &r) mine.push_back(&item);
      }
      if (mine.empty()) {
        failures.push_back({where(e), r.id, "match example not matched: " + shorten(e.text)});
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
      const Findings f = scanner.scanText(e.text, Direction::kRequest, policy);
      if (std::ranges::any_of(f.items, [&](const Finding& x) { return x.rule == &r; })) {
        failures.push_back({where(e), r.id, "no_match example matched: " + shorten(e.text)});
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
  std::size_t examples = 0;
  for (const auto& r : (*rules)->rules()) examples += r.match.size() + r.no_match.size();
  const auto failures = runExamples(*rules);
  for (const auto& f : failures) {
    err << f.where << ": rule '" << f.rule_id << "': " << f.message << "\n";
  }
  out << (*rules)->size() << " rules, " << examples << " examples, " << failures.size()
      << " failed\n";
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
      const auto data = readFile(it->path());
      if (!data || looksBinary(*data)) continue;
      for (const auto& item : scanner.scanText(*data, Direction::kRequest, policy).items) {
        const auto [line, col] = lineColumn(*data, item.start);
        problem(item.rule->where(), "rule '" + item.rule->id + "' fires on benign " +
                                        it->path().string() + ":" + std::to_string(line));
      }
    }
  }
  out << count << " rules, " << problems << " problems\n";
  return problems == 0 ? kExitClean : kExitFindings;
}

int runRulesCommand(std::span<char* const> args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && std::strcmp(args[0], "test") == 0) {
    return runRulesTest(args.subspan(1), out, err);
  }
  if (!args.empty() && std::strcmp(args[0], "lint") == 0) {
    return runRulesLint(args.subspan(1), out, err);
  }
  err << "usage: mcpgate rules test [PATH]...\n       mcpgate rules lint [--benign DIR] "
         "[PATH]...\n";
  return kExitError;
}

}  // namespace mcpgate::dlp
