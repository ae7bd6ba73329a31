#include "dlp/rule_set.h"

#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <functional>

#include "common/digest.h"
#include "common/read_file.h"
#include "dlp/rule_cache.h"

namespace mcpgate::dlp {
namespace {

// Cap on the RE2 window for patterns without a bounded width (`{20,}`, `+`): a secret longer than
// this is found from its first 4 KiB, which is enough to confirm and redact it.
constexpr std::size_t kMaxWindow = 4096;

// Everything that changes the compiled databases, so the cache key changes with it.
// `on_request`: the rules of the request database (RuleSet::requestDatabase).
std::string databaseKey(const std::vector<Rule>& rules, const std::vector<bool>& on_request) {
  std::string k = hs_version();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = rules[i];
    k += '\n';
    if (r.is_detector) {
      k += "detector";  // takes a rule index, so it moves the ids of the rules after it
      continue;
    }
    k += std::to_string(hsFlags(r));
    if (r.gate) k += "\tgated";
    if (r.keywords_json_key) k += "\tjson-key";
    if (!on_request[i]) k += "\tnot-on-requests";
    k += '\t';
    k += hsScanExpression(r);
  }
  return sha256Hex(k);
}

std::filesystem::path cacheFile(const LoadOptions& o, const std::string& hash,
                                std::string_view kind) {
  return o.cache_dir / ("rules-" + hash + std::string(kind) + ".hsimg");
}

// One block-mode database of the rules (not detectors) that `take` selects; null (and no error)
// if there are none.
std::expected<HsDatabase, Error> compileDatabase(const std::vector<Rule>& rs,
                                                 const std::function<bool(std::size_t)>& take) {
  std::vector<std::string> expressions;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].is_detector || rs[i].keywords_json_key || !take(i)) continue;
    expressions.push_back(hsScanExpression(rs[i]));
    flags.push_back(hsFlags(rs[i]));
    ids.push_back(static_cast<unsigned>(i));
  }
  if (expressions.empty()) return HsDatabase();
  std::vector<const char*> exprs;
  for (const auto& e : expressions) exprs.push_back(e.c_str());
  hs_database_t* db = nullptr;
  hs_compile_error_t* raw_err = nullptr;
  if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()),
                       HS_MODE_BLOCK, nullptr, &db, &raw_err) != HS_SUCCESS) {
    const HsCompileError err(raw_err);
    std::string where = "rule set";
    if (err && err->expression >= 0 && static_cast<std::size_t>(err->expression) < ids.size()) {
      const auto& r = rs[ids[static_cast<std::size_t>(err->expression)]];
      where = r.where() + ": rule '" + r.id + "'";
    }
    return std::unexpected(
        Error{where + ": Hyperscan compile failed: " + (err ? err->message : "unknown error")});
  }
  return HsDatabase(db);
}

// Written aside and renamed, so a concurrent starter never reads half a file.
void writeFile(const std::filesystem::path& file, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  const auto tmp = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

// A database is cached as its in-memory image, which a warm start maps read-only and scans in
// place: Hyperscan's own deserialization zeroes and copies the megabytes of every database and
// checks them, which was about half of a warm start's CPU (bench/RESULTS.md). Hyperscan never
// writes to a database, and its bytecode sits at an offset the image carries, so the image works
// at any address with the same place in a 64-byte line (the offset below keeps it). Mapped pages
// are the page cache's, shared by every gateway and `mcpgate stdio` on the host.
// Layout: ImageHeader, zeros up to `offset`, then `size` bytes of image whose CRC-32C is `crc`.
// The file name's key carries the Hyperscan version; hs_database_size checks the magic, the
// version and the CPU platform, so a foreign image is recompiled, like a damaged one.
constexpr char kImageMagic[8] = {'M', 'C', 'P', 'G', 'H', 'S', 'I', '1'};
constexpr std::size_t kImageHeader = 64;
constexpr std::size_t kImageAlign = 64;  // Hyperscan puts the bytecode on a cache line
struct ImageHeader {
  char magic[8];
  std::uint64_t offset;
  std::uint64_t size;
  std::uint32_t crc;
  std::uint32_t reserved;
};
static_assert(sizeof(ImageHeader) <= kImageHeader);

HsDatabase readCache(const std::filesystem::path& file) {
  auto map = MappedFile::open(file);
  if (!map) return nullptr;
  const std::string_view bytes = map->bytes();
  ImageHeader h{};
  if (bytes.size() < kImageHeader) return nullptr;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kImageMagic, sizeof kImageMagic) != 0 || h.offset < kImageHeader ||
      h.offset % alignof(std::uint64_t) != 0 || h.offset > bytes.size() ||
      bytes.size() - h.offset != h.size || h.size == 0) {
    return nullptr;
  }
  const std::string_view image = bytes.substr(h.offset);
  if (common::crc32c(image) != h.crc) return nullptr;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): Hyperscan takes the read-only map const
  auto* db = reinterpret_cast<hs_database_t*>(const_cast<char*>(image.data()));
  std::size_t size = 0;
  if (hs_database_size(db, &size) != HS_SUCCESS || size != h.size) return nullptr;
  // It must also run here: Hyperscan picks its code for this CPU at run time, and an image built
  // where the CPU had more (a cache dir shared with an AVX-512 host) is refused only when a
  // scratch is made for it. Every scan would then fail; compile for this CPU instead.
  hs_scratch_t* probe = nullptr;
  const hs_error_t runs_here = hs_alloc_scratch(db, &probe);
  hs_free_scratch(probe);
  if (runs_here != HS_SUCCESS) return nullptr;
  return HsDatabase(db, HsDatabaseFree{std::make_shared<const MappedFile>(std::move(*map))});
}

void writeCache(const std::filesystem::path& file, const hs_database_t* db) {
  std::size_t size = 0;
  if (hs_database_size(db, &size) != HS_SUCCESS) return;
  const std::string_view image(reinterpret_cast<const char*>(db), size);
  ImageHeader h{};
  std::memcpy(h.magic, kImageMagic, sizeof kImageMagic);
  h.offset = kImageHeader + reinterpret_cast<std::uintptr_t>(db) % kImageAlign;
  h.size = size;
  h.crc = common::crc32c(image);
  std::string out(h.offset, '\0');
  std::memcpy(out.data(), &h, sizeof h);
  out += image;
  writeFile(file, out);
}

}  // namespace

RuleSet::~RuleSet() = default;

const Rule* RuleSet::find(std::string_view id) const {
  const auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : &rules_[it->second];
}

std::expected<std::shared_ptr<const RuleSet>, Error> RuleSet::load(
    std::span<const std::filesystem::path> paths, const LoadOptions& options) {
  // Read, not mapped: an editor may truncate a rule file while a reload reads it.
  std::vector<std::pair<std::filesystem::path, std::string>> texts;
  for (const auto& p : paths) {
    auto names = ruleFiles(p);
    if (!names) return std::unexpected(names.error());
    for (const auto& f : *names) {
      auto bytes = readWholeFile(f);
      if (!bytes) return std::unexpected(Error{f.string() + ": cannot open rule file"});
      texts.emplace_back(f, std::move(*bytes));
    }
  }
  std::vector<std::pair<std::filesystem::path, std::string_view>> files;
  files.reserve(texts.size());
  for (const auto& [f, bytes] : texts) files.emplace_back(f, bytes);
  // Warm start: the same files (names and bytes) were parsed and checked before.
  std::filesystem::path cached;
  if (!options.cache_dir.empty()) {
    cached = options.cache_dir / ("rules-" + ruleFilesKey(files) + ".rules");
    if (auto blob = MappedFile::open(cached)) {
      if (auto c = deserializeRules(blob->bytes()); c && !c->rules.empty()) {
        return build(std::move(c->rules), options, /*checked=*/true, &c->windows);
      }
    }
  }
  std::vector<Rule> all;
  for (const auto& [name, bytes] : files) {
    auto rules = loadRuleText(bytes, name.string());
    if (!rules) return std::unexpected(rules.error());
    std::ranges::move(*rules, std::back_inserter(all));
  }
  if (all.empty()) return std::unexpected(Error{"no rules found in the given rule paths"});
  auto set = build(std::move(all), options, /*checked=*/true, nullptr);
  if (set && !cached.empty()) {
    CachedRules c{(*set)->rules_, {}};
    for (const auto& cf : (*set)->confirm_) c.windows.push_back(cf.base_window);
    writeFile(cached, serializeRules(c));
  }
  return set;
}

std::expected<std::shared_ptr<const RuleSet>, Error> RuleSet::fromRules(
    std::vector<Rule> rules, const LoadOptions& options) {
  return build(std::move(rules), options, /*checked=*/false, nullptr);
}

std::expected<std::shared_ptr<const RuleSet>, Error> RuleSet::build(
    std::vector<Rule> rules, const LoadOptions& options, bool checked,
    const std::vector<std::size_t>* windows) {
  std::shared_ptr<RuleSet> set(new RuleSet());
  set->rules_ = std::move(rules);
  const auto& rs = set->rules_;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto [it, inserted] = set->by_id_.emplace(rs[i].id, i);
    if (!inserted) {
      return std::unexpected(Error{rs[i].where() + ": duplicate rule id '" + rs[i].id +
                                   "' (first defined at " + rs[it->second].where() + ")"});
    }
  }

  set->confirm_.reserve(rs.size());
  re2::RE2::Options xo;  // excludes: Latin-1, caseless
  xo.set_encoding(re2::RE2::Options::EncodingLatin1);
  xo.set_case_sensitive(false);
  xo.set_log_errors(false);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const Rule& r = rs[i];
    if (!checked) {
      if (auto ok = checkRule(r); !ok) return std::unexpected(ok.error());
    }
    Confirm c;
    if (r.is_detector) {
      set->detectors_.push_back(set->confirm_.size());
      set->confirm_.push_back(std::move(c));
      continue;
    }
    if (r.isSignal()) {
      const auto it = set->by_id_.find(r.detector);
      if (it != set->by_id_.end() && rs[it->second].is_detector) {
        c.detector = it->second;
      } else if (!r.request && !r.response) {
        return std::unexpected(Error{r.where() + ": rule '" + r.id + "' only feeds detector '" +
                                     r.detector + "', which is not loaded"});
      }
    }
    c.re = LazyRe2(re2Pattern(r), re2Options(r));
    for (const auto& x : r.exclude) c.exclude.emplace_back(x, xo);
    for (const auto& x : r.exclude_match) c.exclude_match.emplace_back(x, xo);
    if (windows != nullptr && i < windows->size()) {
      c.window = (*windows)[i];
    } else {
      hs_expr_info_t* raw_info = nullptr;
      hs_compile_error_t* raw_err = nullptr;
      if (hs_expression_info(r.pattern.c_str(), hsFlags(r), &raw_info, &raw_err) == HS_SUCCESS) {
        const HsExprInfo info(raw_info);
        c.window = info->max_width == UINT_MAX ? kMaxWindow
                                               : std::min<std::size_t>(info->max_width, kMaxWindow);
      } else {
        const HsCompileError err(raw_err);
        c.window = kMaxWindow;
      }
    }
    c.base_window = c.window;
    if (r.keywordGated()) {
      // Hyperscan reports the keyword's end; the match may lie up to the keyword window away.
      std::size_t longest = 0;
      for (const auto& k : r.keywords) longest = std::max(longest, k.size());
      c.window += kKeywordBefore + kKeywordAfter + longest;
      c.keyword_gated = true;
      set->keyword_gated_.push_back(set->confirm_.size());
      if (r.keywords_json_key) set->json_key_rules_.push_back(set->confirm_.size());
    }
    set->confirm_.push_back(std::move(c));
  }

  std::vector<std::string> prefixes;
  set->prefix_led_.assign(rs.size(), false);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const Rule& r = rs[i];
    if (r.category != Category::kSecret || r.is_detector) continue;
    for (auto& p : leadingLiterals(r.pattern, r.secret_group)) {
      if (!TokenPrefixes::accepts(p)) continue;
      set->prefix_led_[i] = true;
      prefixes.push_back(std::move(p));
    }
  }
  set->token_prefixes_ = TokenPrefixes(prefixes);

  for (const auto& r : rs) {
    if (!r.gate) continue;
    if (auto ok = set->gates_.add(*r.gate); !ok) {
      return std::unexpected(Error{r.where() + ": rule '" + r.id + "': " + ok.error()});
    }
    set->gate_reach_ = std::max(set->gate_reach_, dlp::gateReach(r));
  }
  // The request database: the plain rules that can report on a request (RuleSet::requestDatabase).
  // Built only when it leaves something out (the injection detector's signals, response-only
  // rules): a small tools/call then skips their Hyperscan cost.
  std::vector<bool> on_request(rs.size(), false);
  std::size_t plain_count = 0, request_count = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const Rule& r = rs[i];
    if (r.is_detector) continue;
    const std::size_t d = set->confirm_[i].detector;
    on_request[i] = r.request || (d != kNoDetector && rs[d].request);
    if (r.gate) continue;
    ++plain_count;
    if (on_request[i]) ++request_count;
  }
  set->request_split_ = request_count < plain_count;

  // The databases and their cache files: all from the cache, or all compiled.
  struct Part {
    std::string_view suffix;
    bool needed;
    std::function<bool(std::size_t)> take;
    HsDatabase* into;
  };
  const std::array<Part, 3> parts{{
      {"", plain_count > 0, [&](std::size_t i) { return !rs[i].gate; }, &set->db_},
      {".gated", !set->gates_.empty(), [&](std::size_t i) { return rs[i].gate.has_value(); },
       &set->gated_db_},
      {".request", set->request_split_ && request_count > 0,
       [&](std::size_t i) { return !rs[i].gate && on_request[i]; }, &set->request_db_},
  }};
  set->hash_ = databaseKey(rs, on_request);
  if (!options.cache_dir.empty()) {
    std::array<HsDatabase, 3> cached;
    bool all = true;
    for (std::size_t k = 0; k < parts.size() && all; ++k) {
      if (!parts[k].needed) continue;
      cached[k] = readCache(cacheFile(options, set->hash_, parts[k].suffix));
      all = cached[k] != nullptr;
    }
    if (all) {
      for (std::size_t k = 0; k < parts.size(); ++k) *parts[k].into = std::move(cached[k]);
      set->from_cache_ = true;
      return set;
    }
  }
  for (const Part& part : parts) {
    if (!part.needed) continue;
    auto db = compileDatabase(rs, part.take);
    if (!db) return std::unexpected(db.error());
    *part.into = std::move(*db);
    if (!options.cache_dir.empty() && *part.into) {
      writeCache(cacheFile(options, set->hash_, part.suffix), part.into->get());
    }
  }
  return set;
}

}  // namespace mcpgate::dlp
