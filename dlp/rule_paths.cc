#include "dlp/rule_paths.h"

#include <cstdlib>
#include <system_error>

namespace mcpgate::dlp {

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

}  // namespace mcpgate::dlp
