// Walks a JSON-RPC message and scans every string value.
#include <nlohmann/json.hpp>
#include <string_view>

namespace demo {

constexpr std::string_view kBuildId = "8f14e45fceea167a5a36dedd4bea2543";
constexpr unsigned long long kSeed = 0x9e3779b97f4a7c15ULL;

void walk(const nlohmann::json& v, int depth) {
  if (depth > 64) return;  // bounded: a hostile message cannot blow the stack
  if (v.is_string()) scan(v.get_ref<const std::string&>());
  for (const auto& child : v) walk(child, depth + 1);
}

}  // namespace demo
