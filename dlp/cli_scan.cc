#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "common/read_file.h"
#include "dlp/cli.h"
#include "dlp/cli_document.h"
#include "dlp/redact.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {
namespace {

std::string readStdin() {
  std::ostringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
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
    if (!scanDocument(scanner_, policy_, dir, name, data, /*text_too=*/false,
                      [&](const Placed& p) { report(name, data, *p.finding, p.secret, p.offset, binary); })) {
      err << "mcpgate scan: " << name << ": could not be scanned (the DLP engine failed on it)\n";
      failed = true;
    }
  }

  bool failed = false;  // some input was not (fully) scanned

 private:
  void report(const std::string& name, std::string_view data, const Finding& f,
              std::string_view secret, std::size_t offset, bool binary) {
    ++findings;
    std::size_t line = 0, col = 0;
    if (offset != std::string_view::npos) std::tie(line, col) = lineColumn(data, offset);
    // A detector's finding shows which signals fired, never the text they fired on.
    const std::string preview = f.signals.empty() ? maskedPreview(secret) : std::string();
    const std::string_view direction = directionOf(*f.rule);
    if (opts_.json) {
      nlohmann::json j = {{"file", name},
                          {"rule", f.rule->id},
                          {"description", f.rule->description},
                          {"category", toString(f.rule->category)},
                          {"severity", toString(f.rule->severity)},
                          {"action", toString(f.action)},
                          {"line", line},
                          {"column", col},
                          {"start", f.start},
                          {"end", f.end},
                          {"decoded_by", f.decoded_by},
                          {"direction", direction},
                          {"preview", preview}};
      if (!f.signals.empty()) {
        j["score"] = f.score;
        j["signals"] = nlohmann::json::array();
        for (const Rule* s : f.signals) j["signals"].push_back(s->id);
      }
      if (!f.pointer.empty() || f.in_key) j["pointer"] = f.pointer;
      if (f.in_key) j["in_key"] = true;
      if (offset != std::string_view::npos) j["offset"] = offset;
      if (binary) j["binary"] = true;
      out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return;
    }
    // The description says which service and kind of credential (or what the detector found).
    out_ << name << ":" << line << ":" << col << ": " << toString(f.rule->severity) << " "
         << f.rule->id;
    if (!f.rule->description.empty()) out_ << " \"" << f.rule->description << "\"";
    out_ << " (" << toString(f.rule->category) << ", " << toString(f.action) << ", "
         << direction << ")";
    if (!f.pointer.empty()) out_ << " at " << f.pointer << (f.in_key ? " (key)" : "");
    if (!f.decoded_by.empty()) out_ << " decoded by " << f.decoded_by;
    if (binary) out_ << " (binary, offset " << offset << ")";
    if (!f.signals.empty()) {
      out_ << ": score " << f.score << " from";
      for (const Rule* s : f.signals) out_ << " " << s->id;
      out_ << "\n";
      return;
    }
    out_ << ": " << preview << "\n";
  }

  // The direction a finding is for: the one asked for, else every direction its rule applies to.
  std::string_view directionOf(const Rule& r) const {
    if (opts_.direction) return toString(*opts_.direction);
    if (r.request && r.response) return "both";
    return r.request ? "request" : "response";
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

}  // namespace

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
    auto data = readWholeFile(p);
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
  if (failed || reporter.failed) return kExitError;
  return reporter.findings > 0 ? kExitFindings : kExitClean;
}

}  // namespace mcpgate::dlp
