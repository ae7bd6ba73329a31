#include "dlp/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

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

// Where each string of a JSON text sits in that text, so a finding in a decoded string value is
// reported at the bytes of the file that hold it (escapes included). Built only for files that
// nlohmann has already accepted, so it can assume well-formed JSON.
// The decoded string a JSON finding is in (the key itself for a key).
std::string stringAt(const nlohmann::json& doc, const Finding& f) {
  try {
    const nlohmann::json::json_pointer ptr(f.pointer);
    if (f.in_key) return ptr.back();
    const auto& v = doc.at(ptr);
    if (v.is_number_integer()) return v.dump();  // scanned as its text (see scanner.cc)
    return v.is_string() ? v.get<std::string>() : std::string();
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

class JsonStringIndex {
 public:
  // `base`: offset of `raw` in the file (the start of its line, for JSON Lines).
  JsonStringIndex(std::string_view raw, std::size_t base) : raw_(raw), base_(base) {
    std::size_t i = 0;
    std::string ptr;
    ok_ = value(i, ptr, 0);
  }

  // File offset of decoded byte `offset` of the string at `pointer` (its key if `in_key`); npos
  // if unknown.
  [[nodiscard]] std::size_t locate(const std::string& pointer, bool in_key,
                                   std::size_t offset) const {
    if (!ok_) return std::string_view::npos;
    const auto it = (in_key ? keys_ : values_).find(pointer);
    if (it == (in_key ? keys_ : values_).end()) return std::string_view::npos;
    const std::size_t begin = it->second;
    // Walk the raw string: each escape is one to four decoded bytes from six or two raw ones.
    std::size_t i = begin, decoded = 0;
    while (i < raw_.size() && raw_[i] != '"') {
      std::size_t raw_len = 1, out_len = 1;
      if (raw_[i] == '\\' && i + 1 < raw_.size()) {
        raw_len = 2;
        if (raw_[i + 1] == 'u') {
          const unsigned cp = hex4(i + 2);
          raw_len = 6;
          if (cp >= 0xD800 && cp <= 0xDBFF && i + 11 < raw_.size() && raw_[i + 6] == '\\' &&
              raw_[i + 7] == 'u') {
            raw_len = 12;
            out_len = 4;
          } else {
            out_len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
          }
        }
      }
      if (decoded + out_len > offset) break;
      decoded += out_len;
      i += raw_len;
    }
    return base_ + i;
  }

 private:
  static constexpr int kMaxDepth = 512;

  unsigned hex4(std::size_t at) const {
    unsigned v = 0;
    for (std::size_t k = at; k < at + 4 && k < raw_.size(); ++k) {
      const char c = raw_[k];
      v = v * 16 + static_cast<unsigned>(c >= '0' && c <= '9'   ? c - '0'
                                         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                                : c - 'A' + 10);
    }
    return v;
  }
  void skipSpace(std::size_t& i) const {
    while (i < raw_.size() &&
           (raw_[i] == ' ' || raw_[i] == '\t' || raw_[i] == '\n' || raw_[i] == '\r')) {
      ++i;
    }
  }
  // At the opening quote; leaves i after the closing one. `out` gets the decoded text.
  bool string(std::size_t& i, std::size_t& content, std::string* out) const {
    if (i >= raw_.size() || raw_[i] != '"') return false;
    content = ++i;
    while (i < raw_.size() && raw_[i] != '"') {
      if (raw_[i] != '\\') {
        if (out) out->push_back(raw_[i]);
        ++i;
        continue;
      }
      if (i + 1 >= raw_.size()) return false;
      const char e = raw_[i + 1];
      if (e != 'u') {
        if (out) {
          out->push_back(e == 'n'   ? '\n'
                         : e == 't' ? '\t'
                         : e == 'r' ? '\r'
                         : e == 'b' ? '\b'
                         : e == 'f' ? '\f'
                                    : e);
        }
        i += 2;
        continue;
      }
      unsigned cp = hex4(i + 2);
      i += 6;
      if (cp >= 0xD800 && cp <= 0xDBFF && i + 5 < raw_.size() && raw_[i] == '\\' &&
          raw_[i + 1] == 'u') {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(i + 2) - 0xDC00);
        i += 6;
      }
      if (out) {
        if (cp < 0x80) {
          out->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
          out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
          out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
          out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
          out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
          out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
          out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
      }
    }
    if (i >= raw_.size()) return false;
    ++i;
    return true;
  }
  bool value(std::size_t& i, std::string& ptr, int depth) {
    if (depth > kMaxDepth) return false;
    skipSpace(i);
    if (i >= raw_.size()) return false;
    const char c = raw_[i];
    if (c == '"') {
      std::size_t content = 0;
      if (!string(i, content, nullptr)) return false;
      values_[ptr] = content;
      return true;
    }
    if (c == '{' || c == '[') {
      ++i;
      const char close = c == '{' ? '}' : ']';
      for (std::size_t index = 0;; ++index) {
        skipSpace(i);
        if (i < raw_.size() && raw_[i] == close) {
          ++i;
          return true;
        }
        if (index > 0) {
          if (i >= raw_.size() || raw_[i] != ',') return false;
          ++i;
          skipSpace(i);
        }
        const std::size_t mark = ptr.size();
        if (c == '{') {
          std::string key;
          std::size_t content = 0;
          if (!string(i, content, &key)) return false;
          appendPointerToken(ptr, key);
          keys_[ptr] = content;
          skipSpace(i);
          if (i >= raw_.size() || raw_[i] != ':') return false;
          ++i;
        } else {
          appendPointerToken(ptr, std::to_string(index));
        }
        if (!value(i, ptr, depth + 1)) return false;
        ptr.resize(mark);
      }
    }
    // A number, true, false or null. Long integers are scanned as their text.
    values_[ptr] = i;
    while (i < raw_.size() && raw_[i] != ',' && raw_[i] != '}' && raw_[i] != ']' &&
           raw_[i] != ' ' && raw_[i] != '\n' && raw_[i] != '\r' && raw_[i] != '\t') {
      ++i;
    }
    return true;
  }

  std::string_view raw_;
  std::size_t base_;
  bool ok_ = false;
  std::unordered_map<std::string, std::size_t> values_;
  std::unordered_map<std::string, std::size_t> keys_;
};

// Binary files are not skipped: secrets sit in compiled configs, databases and core dumps too. As
// `strings` does, keep runs of at least this many printable bytes; every other byte becomes a
// newline, so offsets stay those of the file.
constexpr std::size_t kMinPrintableRun = 8;

std::string printableRuns(std::string_view data) {
  std::string out(data.size(), '\n');
  const auto printable = [](unsigned char c) { return (c >= 0x20 && c < 0x7F) || c == '\t'; };
  for (std::size_t i = 0; i < data.size();) {
    if (!printable(static_cast<unsigned char>(data[i]))) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < data.size() && printable(static_cast<unsigned char>(data[e]))) ++e;
    if (e - i >= kMinPrintableRun) std::copy(data.begin() + i, data.begin() + e, out.begin() + i);
    i = e;
  }
  return out;
}

bool isJsonLinesName(std::string_view name) {
  return name.ends_with(".jsonl") || name.ends_with(".ndjson");
}

// One finding placed in the scanned file.
struct Placed {
  const Finding* finding;
  std::size_t offset;       // byte offset in the file of the finding's first byte; npos: unknown
  std::string_view secret;  // the decoded secret, for the masked preview
};

// Scans one file's bytes the way `mcpgate scan` does: JSON (an object or array) as JSON, JSON
// Lines line by line as JSON, binary through its printable runs, the rest as text. With
// `text_too`, JSON is also scanned as plain text (rules lint: a benign file must be clean both
// ways). `sink` gets every finding with its place in the file.
void scanDocument(const Scanner& scanner, const Policy& policy, Direction dir,
                  std::string_view name, std::string_view data, bool text_too,
                  const std::function<void(const Placed&)>& sink) {
  const auto scanText = [&](std::string_view text, std::size_t base) {
    const Findings f = scanner.scanText(text, dir, policy);
    for (const auto& item : f.items) {
      sink(Placed{&item, base + item.start, text.substr(item.start, item.end - item.start)});
    }
  };
  // Holds decoded strings alive while sink() looks at them.
  const auto scanJson = [&](const nlohmann::json& doc, std::string_view raw, std::size_t base) {
    const JsonStringIndex index(raw, base);
    const Findings f = scanner.scan(doc, dir, policy);
    for (const auto& item : f.items) {
      const std::string value = stringAt(doc, item);
      const std::size_t s = std::min(item.start, value.size());
      const std::string_view secret = std::string_view(value).substr(s, item.end - s);
      sink(Placed{&item, index.locate(item.pointer, item.in_key, item.start), secret});
    }
  };
  const auto parse = [](std::string_view text) {
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  };
  const auto structured = [](const nlohmann::json& j) {
    return !j.is_discarded() && (j.is_object() || j.is_array());
  };

  if (looksBinary(data)) {
    scanText(printableRuns(data), 0);
    return;
  }
  if (const auto doc = parse(data); structured(doc)) {
    scanJson(doc, data, 0);
    if (text_too) scanText(data, 0);
    return;
  }
  // JSON Lines: by name, or when every non-empty line is a JSON object or array.
  std::vector<std::pair<std::size_t, std::size_t>> lines;
  for (std::size_t b = 0; b < data.size();) {
    std::size_t e = data.find('\n', b);
    if (e == std::string_view::npos) e = data.size();
    lines.emplace_back(b, e);
    b = e + 1;
  }
  std::vector<nlohmann::json> docs(lines.size());
  bool jsonl = isJsonLinesName(name);
  bool any = false;
  if (!jsonl) {
    jsonl = true;
    for (std::size_t k = 0; k < lines.size() && jsonl; ++k) {
      const auto line = data.substr(lines[k].first, lines[k].second - lines[k].first);
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      docs[k] = parse(line);
      jsonl = structured(docs[k]);
      any = true;
    }
    jsonl = jsonl && any;
  } else {
    for (std::size_t k = 0; k < lines.size(); ++k) {
      docs[k] = parse(data.substr(lines[k].first, lines[k].second - lines[k].first));
    }
  }
  if (!jsonl) {
    scanText(data, 0);
    return;
  }
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const auto line = data.substr(lines[k].first, lines[k].second - lines[k].first);
    if (docs[k].is_discarded() || !(docs[k].is_object() || docs[k].is_array())) {
      scanText(line, lines[k].first);  // a line that is not JSON is still scanned
      continue;
    }
    scanJson(docs[k], line, lines[k].first);
    if (text_too) scanText(line, lines[k].first);
  }
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

  // `err` gets a notice for a binary file (scanned through its printable runs).
  void scanData(const std::string& name, std::string_view data, std::ostream& err) {
    const Direction dir = opts_.direction.value_or(Direction::kRequest);
    if (looksBinary(data)) {
      err << "mcpgate scan: " << name << ": binary file, scanning its printable runs (offsets are "
          << "file offsets)\n";
    }
    const bool binary = looksBinary(data);
    scanDocument(scanner_, policy_, dir, name, data, /*text_too=*/false, [&](const Placed& p) {
      report(name, data, *p.finding, p.secret, p.offset, binary);
    });
  }

 private:
  void report(const std::string& name, std::string_view data, const Finding& f,
              std::string_view secret, std::size_t offset, bool binary) {
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
      if (offset != std::string_view::npos) j["offset"] = offset;
      if (binary) j["binary"] = true;
      out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return;
    }
    out_ << name << ":" << line << ":" << col << ": " << toString(f.rule->severity) << " "
         << f.rule->id << " (" << toString(f.rule->category) << ", " << toString(f.action) << ")";
    if (!f.pointer.empty()) out_ << " at " << f.pointer << (f.in_key ? " (key)" : "");
    if (!f.decoded_by.empty()) out_ << " decoded by " << f.decoded_by;
    if (binary) out_ << " (binary, offset " << offset << ")";
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
  return defaultRulePathsFor(ec ? std::filesystem::path() : exe);
}

std::vector<std::filesystem::path> defaultRulePathsFor(const std::filesystem::path& exe) {
  std::error_code ec;
  const auto isDir = [&ec](const std::filesystem::path& p) {
    return std::filesystem::is_directory(p, ec);
  };
  const std::filesystem::path source = std::filesystem::path(MCPGATE_SOURCE_DIR) / "rules";
  if (!exe.empty()) {
    const auto installed =
        (exe.parent_path() / ".." / MCPGATE_INSTALL_RULES_REL).lexically_normal();
    if (isDir(installed)) return {installed};
    // A binary of this build tree uses the rules next to its sources, not an older install.
    const auto rel = exe.lexically_normal().lexically_relative(MCPGATE_BINARY_DIR);
    if (!rel.empty() && *rel.begin() != ".." && isDir(source)) return {source};
  }
  const std::filesystem::path prefix = MCPGATE_INSTALL_RULES_DIR;
  if (isDir(prefix)) return {prefix};
  if (isDir(source)) return {source};
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
    reporter.scanData(p.string(), *data, err);
  };
  for (const auto& in : o.inputs) {
    if (in == "-") {
      reporter.scanData("-", readStdin(), err);
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
      if (!data) {
        problem(it->path().string(), "cannot read benign file");
        continue;
      }
      // As `mcpgate scan` reads it (JSON as JSON, with pointers and decoded escapes) and as plain
      // text too: the gateway sees JSON, a rule author's test sees text.
      const std::string file = it->path().string();
      scanDocument(scanner, policy, Direction::kRequest, file, *data, /*text_too=*/true,
                   [&](const Placed& p) {
                     const auto line = p.offset == std::string_view::npos
                                           ? std::size_t{0}
                                           : lineColumn(*data, p.offset).first;
                     std::string what = "rule '" + p.finding->rule->id + "' fires on benign " +
                                        file + ":" + std::to_string(line);
                     if (!p.finding->pointer.empty()) what += " at " + p.finding->pointer;
                     problem(p.finding->rule->where(), what);
                   });
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
