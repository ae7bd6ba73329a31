#pragma once

// ${VAR} references in config values, so secrets can stay out of the file.

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgate::config {

using VariableLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Replaces each ${NAME} (NAME = [A-Za-z_][A-Za-z0-9_]*) with lookup(NAME); "$$"
// is a literal "$", and a "$" followed by anything else is kept as written. An
// undefined variable is an error, not an empty string: a server started with
// an empty token fails later and far less clearly. The error reads well after
// "KEY: ", e.g. "${TOKEN} is not set in the gateway's environment".
// ${secret:NAME} asks `secrets` (the encrypted store); where that is null
// (everywhere but a server's env) a secret reference is an error.
// VS Code's mcp.json forms: ${env:NAME} is ${NAME}; ${input:ID} (a prompt) is
// an error that says to pass the value through a secret or the environment.
[[nodiscard]] std::expected<std::string, std::string> expandVariables(
    std::string_view text, const VariableLookup& lookup, const VariableLookup* secrets = nullptr);

// lookup over the gateway's own environment (getenv).
[[nodiscard]] std::optional<std::string> lookupEnvironment(const std::string& name);

}  // namespace mcpgate::config
