#include "sandbox/command.h"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "sandbox/env.h"

namespace mcpgate::sandbox {
namespace {

// The first word of `arg` (split at blanks) that the policy denies.
std::optional<std::string> deniedWord(const SandboxPolicy& policy, std::string_view arg) {
  constexpr std::string_view kBlanks = " \t\r\v\f";
  while (!arg.empty()) {
    auto start = arg.find_first_not_of(kBlanks);
    if (start == std::string_view::npos) break;
    arg.remove_prefix(start);
    std::string_view word = arg.substr(0, arg.find_first_of(kBlanks));
    if (std::ranges::find(policy.arg_deny_words, word) != policy.arg_deny_words.end()) {
      return std::string(word);
    }
    arg.remove_prefix(word.size());
  }
  return std::nullopt;
}

}  // namespace

std::expected<std::string, Error> resolveCommand(const std::string& command) {
  if (command.empty()) return std::unexpected(Error{"empty command"});
  if (command.find('/') != std::string::npos) return command;
  std::string_view path = kSafePath;
  while (!path.empty()) {
    auto colon = path.find(':');
    std::string candidate(path.substr(0, colon));
    candidate += "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return std::unexpected(Error{"command not found in " + std::string(kSafePath) + ": " + command});
}

std::expected<void, Error> checkCommand(const SandboxPolicy& policy, const std::string& command,
                                        const std::string& resolved,
                                        const std::vector<std::string>& args) {
  bool allowed = std::ranges::any_of(policy.commands, [&](const std::string& entry) {
    if (entry.starts_with("/")) return entry == resolved;
    // A name allows exactly what that name resolves to in the safe PATH, so
    // "node" does not allow "/tmp/x/node".
    if (command != entry) return false;
    auto r = resolveCommand(entry);
    return r && *r == resolved;
  });
  if (!allowed) {
    std::string list;
    for (const auto& c : policy.commands) list += (list.empty() ? "" : ", ") + c;
    return std::unexpected(Error{"command '" + command + "' (" + resolved +
                                 ") is not in the sandbox command allowlist [" + list +
                                 "]; add it to sandbox.commands"});
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (auto word = deniedWord(policy, args[i])) {
      return std::unexpected(Error{"argument " + std::to_string(i + 1) + " of '" + command +
                                   "' contains the denied word '" + *word + "'"});
    }
    for (const auto& pattern : policy.arg_deny) {
      if (!pattern.empty() && args[i].find(pattern) != std::string::npos) {
        return std::unexpected(Error{"argument " + std::to_string(i + 1) + " of '" + command +
                                     "' contains the denied pattern '" +
                                     (pattern == "\n" ? std::string("\\n") : pattern) + "'"});
      }
    }
  }
  return {};
}

}  // namespace mcpgate::sandbox
