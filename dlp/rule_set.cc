#include "dlp/rule_set.h"

#include <openssl/evp.h>
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mcpgate::dlp {
namespace {

// Cap on the RE2 window for patterns without a bounded width (`{20,}`, `+`): a secret longer than
// this is found from its first 4 KiB, which is enough to confirm and redact it.
constexpr std::size_t kMaxWindow = 4096;

std::string sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

// Everything that changes the compiled database, so the cache key changes with it.
std::string databaseKey(const std::vector<Rule>& rules) {
  std::string k = hs_version();
  for (const auto& r : rules) {
    k += '\n';
    k += std::to_string(hsFlags(r));
    if (r.gate) k += "\tgated";
    k += '\t';
    k += hsScanExpression(r);
  }
  return sha256Hex(k);
}

std::filesystem::path cacheFile(const LoadOptions& o, const std::string& hash, bool gated) {
  return o.cache_dir / ("rules-" + hash + (gated ? ".gated.hsdb" : ".hsdb"));
}

// One block-mode database of the rules whose gate presence is `gated`; null (and no error) if
// there are none.
std::expected<HsDatabase, Error> compileDatabase(const std::vector<Rule>& rs, bool gated) {
  std::vector<std::string> expressions;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].gate.has_value() != gated) continue;
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

HsDatabase readCache(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string blob = ss.str();
  hs_database_t* db = nullptr;
  // A blob from another Hyperscan build or CPU is rejected here; we then just recompile.
  if (hs_deserialize_database(blob.data(), blob.size(), &db) != HS_SUCCESS) return nullptr;
  return HsDatabase(db);
}

void writeCache(const std::filesystem::path& file, const hs_database_t* db) {
  char* bytes = nullptr;
  std::size_t len = 0;
  if (hs_serialize_database(db, &bytes, &len) != HS_SUCCESS) return;
  const std::unique_ptr<char, decltype(&std::free)> owned(bytes, &std::free);
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  // Write aside and rename, so a concurrent starter never reads half a database.
  const auto tmp = file.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes, static_cast<std::streamsize>(len));
    if (!out) return;
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

RuleSet::~RuleSet() = default;

const Rule* RuleSet::find(std::string_view id) const {
  const auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : &rules_[it->second];
}

std::expected<std::shared_ptr<const RuleSet>, Error> RuleSet::load(
    std::span<const std::filesystem::path> paths, const LoadOptions& options) {
  std::vector<Rule> all;
  for (const auto& p : paths) {
    auto files = ruleFiles(p);
    if (!files) return std::unexpected(files.error());
    for (const auto& f : *files) {
      auto rules = loadRuleFile(f);
      if (!rules) return std::unexpected(rules.error());
      std::ranges::move(*rules, std::back_inserter(all));
    }
  }
  if (all.empty()) return std::unexpected(Error{"no rules found in the given rule paths"});
  return fromRules(std::move(all), options);
}

std::expected<std::shared_ptr<const RuleSet>, Error> RuleSet::fromRules(
    std::vector<Rule> rules, const LoadOptions& options) {
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
  for (const auto& r : rs) {
    if (auto ok = checkRule(r); !ok) return std::unexpected(ok.error());
    Confirm c;
    c.re = compileRe2(r);
    for (const auto& x : r.exclude) {
      re2::RE2::Options o;
      o.set_encoding(re2::RE2::Options::EncodingLatin1);
      o.set_case_sensitive(false);
      o.set_log_errors(false);
      c.exclude.push_back(std::make_unique<re2::RE2>(x, o));
    }
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
    if (r.keywordGated()) {
      // Hyperscan reports the keyword's end; the match may lie up to the keyword window away.
      std::size_t longest = 0;
      for (const auto& k : r.keywords) longest = std::max(longest, k.size());
      c.window += kKeywordBefore + kKeywordAfter + longest;
      c.keyword_gated = true;
      set->keyword_gated_.push_back(set->confirm_.size());
    }
    set->confirm_.push_back(std::move(c));
  }

  for (const auto& r : rs) {
    if (!r.gate) continue;
    if (auto ok = set->gates_.add(*r.gate); !ok) {
      return std::unexpected(Error{r.where() + ": rule '" + r.id + "': " + ok.error()});
    }
    set->gate_reach_ = std::max(set->gate_reach_, dlp::gateReach(r));
  }
  const bool any_gated = !set->gates_.empty();
  const bool any_plain = std::ranges::any_of(rs, [](const Rule& r) { return !r.gate; });

  set->hash_ = databaseKey(rs);
  if (!options.cache_dir.empty()) {
    HsDatabase plain = any_plain ? readCache(cacheFile(options, set->hash_, false)) : nullptr;
    HsDatabase gated = any_gated ? readCache(cacheFile(options, set->hash_, true)) : nullptr;
    if ((plain || !any_plain) && (gated || !any_gated)) {
      set->db_ = std::move(plain);
      set->gated_db_ = std::move(gated);
      set->from_cache_ = true;
      return set;
    }
  }
  auto plain = compileDatabase(rs, false);
  if (!plain) return std::unexpected(plain.error());
  auto gated = compileDatabase(rs, true);
  if (!gated) return std::unexpected(gated.error());
  set->db_ = std::move(*plain);
  set->gated_db_ = std::move(*gated);
  if (!options.cache_dir.empty()) {
    if (set->db_) writeCache(cacheFile(options, set->hash_, false), set->db_.get());
    if (set->gated_db_) writeCache(cacheFile(options, set->hash_, true), set->gated_db_.get());
  }
  return set;
}

}  // namespace mcpgate::dlp
