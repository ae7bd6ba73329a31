// Rule files: any YAML gives rules or an error with a message, never a crash; rules that load
// compile into a database (when few enough to keep the fuzzer fast).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dlp/rule.h"
#include "dlp/rule_set.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;
namespace dlp = mcpgate::dlp;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  auto rules = dlp::loadRuleText(yaml, "fuzz.yaml");
  if (!rules) {
    check(!rules.error().message.empty(), "an error without a message");
    return 0;
  }
  if (rules->size() > 4) return 0;
  auto set = dlp::RuleSet::fromRules(std::move(*rules));
  if (!set) check(!set.error().message.empty(), "a compile error without a message");
  return 0;
}
