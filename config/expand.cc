#include "config/expand.h"

#include <cstdlib>

namespace mcpgate::config {
namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

std::expected<std::string, std::string> expandVariables(std::string_view text,
                                                        const VariableLookup& lookup,
                                                        const VariableLookup* secrets) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      out += '$';
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos) {
      return std::unexpected(std::string("unterminated '${' (write '$$' for a literal '$')"));
    }
    std::string name(text.substr(i + 2, close - i - 2));
    // VS Code's mcp.json spells a variable of the environment ${env:NAME}.
    if (name.starts_with("env:")) name.erase(0, 4);
    // ...and a value it prompts the user for ${input:ID}: nobody answers a
    // prompt in front of a gateway, so say where the value goes instead.
    if (name.starts_with("input:")) {
      return std::unexpected("${" + name +
                             "} asks VS Code to prompt for a value, which a gateway cannot do: "
                             "store the value with `mcpgate secret` and write ${secret:NAME}, or "
                             "put it in the gateway's environment and write ${VARIABLE}");
    }
    constexpr std::string_view kSecret = "secret:";
    const bool secret = name.starts_with(kSecret);
    if (secret) name.erase(0, kSecret.size());
    bool valid = !name.empty() && isNameStart(name.front());
    for (char c : name) valid = valid && isNameChar(c);
    if (!valid) {
      return std::unexpected(std::string("invalid variable name '${") + (secret ? "secret:" : "") +
                             name + "}' (use letters, digits and _; write '$$' for a literal '$')");
    }
    if (secret && secrets == nullptr) {
      return std::unexpected("${secret:" + name +
                             "} may only be used in a server's env: secrets reach servers only "
                             "as their environment");
    }
    std::optional<std::string> value = secret ? (*secrets)(name) : lookup(name);
    if (!value && secret) {
      return std::unexpected("${secret:" + name + "} is not a valid secret reference");
    }
    if (!value) {
      return std::unexpected("${" + name + "} is not set in the gateway's environment");
    }
    out += *value;
    i = close;
  }
  return out;
}

std::optional<std::string> lookupEnvironment(const std::string& name) {
  // The config is loaded before worker threads start, so getenv is not racing setenv.
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace mcpgate::config
