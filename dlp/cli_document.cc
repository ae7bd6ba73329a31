#include "dlp/cli_document.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace mcpgate::dlp {
namespace {

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

}  // namespace

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

// Scans one file's bytes the way `mcpgate scan` does: JSON (an object or array) as JSON, JSON
// Lines line by line as JSON, binary through its printable runs, the rest as text. With
// `text_too`, JSON is also scanned as plain text (rules lint: a benign file must be clean both
// ways). `sink` gets every finding with its place in the file. False when part of it could not be
// scanned (the engine failed: no scratch for the databases, a text over 4 GiB).
bool scanDocument(const Scanner& scanner, const Policy& policy, Direction dir,
                  std::string_view name, std::string_view data, bool text_too,
                  const std::function<void(const Placed&)>& sink) {
  bool complete = true;
  const auto scanText = [&](std::string_view text, std::size_t base) {
    const Findings f = scanner.scanText(text, dir, policy);
    complete = complete && !f.failed;
    for (const auto& item : f.items) {
      sink(Placed{&item, base + item.start, text.substr(item.start, item.end - item.start)});
    }
  };
  // Holds decoded strings alive while sink() looks at them.
  const auto scanJson = [&](const nlohmann::json& doc, std::string_view raw, std::size_t base) {
    const JsonStringIndex index(raw, base);
    const Findings f = scanner.scan(doc, dir, policy);
    complete = complete && !f.failed;
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
    return complete;
  }
  if (const auto doc = parse(data); structured(doc)) {
    scanJson(doc, data, 0);
    if (text_too) scanText(data, 0);
    return complete;
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
    return complete;
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
  return complete;
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

}  // namespace mcpgate::dlp
