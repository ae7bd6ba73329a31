// Rule files: any YAML gives rules or an error with a message, never a crash; rules that load
// compile into a database (when few and small enough to keep the fuzzer fast). Hyperscan's
// compile is most of an input's cost and is not instrumented: a set of patterns (with the fields
// the compile reads) is compiled once per process, so the many mutations that change only a rule's
// other fields cost the YAML reading alone.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "dlp/rule.h"
#include "dlp/rule_set.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;
namespace dlp = mcpgate::dlp;

namespace {

// Whether `hash` is new to this process. A table allocated once: an input that inserts must not
// allocate more than it frees, or libFuzzer runs a leak check after it.
bool firstTime(std::size_t hash) {
  static std::vector<std::size_t> table(std::size_t{1} << 20);
  static std::size_t used = 0;
  if (hash == 0) hash = 1;  // 0 marks a free slot
  if (used > table.size() / 2) {
    std::fill(table.begin(), table.end(), 0);
    used = 0;
  }
  for (std::size_t i = hash & (table.size() - 1);; i = (i + 1) & (table.size() - 1)) {
    if (table[i] == hash) return false;
    if (table[i] == 0) {
      table[i] = hash;
      ++used;
      return true;
    }
  }
}

// A rough bound on what Hyperscan's compile builds for `p`: its length times the largest repeat
// count in it. Mutations grow patterns like `(<150 bytes>\d){13,19}` whose compile takes a
// second or more under ASan; the rate fell from 3,800/s to 30/s (session 12). Those still go
// through the loading above, which checks every pattern with both engines' parsers.
std::size_t compileWeight(std::string_view p) {
  std::size_t largest = 1;
  std::size_t n = 0;
  bool in_braces = false;
  for (const char c : p) {
    if (c == '{') {
      in_braces = true;
      n = 0;
    } else if (in_braces && c >= '0' && c <= '9') {
      n = std::min<std::size_t>(n * 10 + static_cast<std::size_t>(c - '0'), 100000);
      largest = std::max(largest, n);
    } else if (c == ',') {
      n = 0;
    } else {
      in_braces = false;
    }
  }
  return p.size() * largest;
}

constexpr std::size_t kMaxCompileWeight = 2048;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  auto rules = dlp::loadRuleText(yaml, "fuzz.yaml");
  if (!rules) {
    check(!rules.error().message.empty(), "an error without a message");
    return 0;
  }
  if (rules->size() > 4) return 0;
  std::string key;
  std::unordered_set<std::string> ids;
  for (const dlp::Rule& r : *rules) {
    if (compileWeight(r.pattern) > kMaxCompileWeight ||
        compileWeight(r.prefilter) > kMaxCompileWeight) {
      return 0;
    }
    key += r.pattern + '\0' + r.prefilter + '\0' +
           (r.gate ? r.gate->run + '\0' + r.gate->count : std::string()) + '\0' +
           std::to_string(r.caseless) + std::to_string(r.dotall) + std::to_string(r.multiline) +
           std::to_string(r.secret_group) + std::to_string(r.is_detector) +
           std::to_string(r.keywords_json_key) +
           std::to_string(!ids.insert(r.id).second) + '\n';
  }
  if (!firstTime(std::hash<std::string>{}(key))) return 0;
  auto set = dlp::RuleSet::fromRules(std::move(*rules));
  if (!set) check(!set.error().message.empty(), "a compile error without a message");
  return 0;
}
