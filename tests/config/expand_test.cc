#include "config/expand.h"

#include <gtest/gtest.h>

#include <map>

namespace mcpgate::config {
namespace {

std::expected<std::string, std::string> expand(std::string_view text) {
  static const std::map<std::string, std::string> kVariables = {
      {"TOKEN", "s3cret"}, {"EMPTY", ""}, {"_A1", "x"}};
  return expandVariables(text, [](const std::string& name) -> std::optional<std::string> {
    auto found = kVariables.find(name);
    if (found == kVariables.end()) return std::nullopt;
    return found->second;
  });
}

TEST(ExpandVariables, ReplacesReferences) {
  EXPECT_EQ(expand("Bearer ${TOKEN}"), "Bearer s3cret");
  EXPECT_EQ(expand("${TOKEN}${_A1}"), "s3cretx");
  EXPECT_EQ(expand("[${EMPTY}]"), "[]");  // set but empty is not undefined
  EXPECT_EQ(expand("plain"), "plain");
}

TEST(ExpandVariables, DollarEscapes) {
  EXPECT_EQ(expand("$${TOKEN}"), "${TOKEN}");
  EXPECT_EQ(expand("a$$b"), "a$b");
  EXPECT_EQ(expand("pa$word$"), "pa$word$");  // a lone $ stays, passwords contain them
}

TEST(ExpandVariables, UndefinedOrMalformedIsAnError) {
  EXPECT_EQ(expand("${NOPE}").error(), "${NOPE} is not set in the gateway's environment");
  EXPECT_EQ(expand("x${TOKEN").error(), "unterminated '${' (write '$$' for a literal '$')");
  EXPECT_EQ(expand("${1X}").error(),
            "invalid variable name '${1X}' (use letters, digits and _; write '$$' for a literal "
            "'$')");
  EXPECT_EQ(expand("${}").error(),
            "invalid variable name '${}' (use letters, digits and _; write '$$' for a literal "
            "'$')");
}

// VS Code's mcp.json: ${env:NAME} reads the environment; ${input:ID} is a prompt
// the gateway cannot show, refused with where the value goes instead.
TEST(ExpandVariables, VsCodeForms) {
  EXPECT_EQ(expand("Bearer ${env:TOKEN}"), "Bearer s3cret");
  EXPECT_EQ(expand("${env:NOPE}").error(), "${NOPE} is not set in the gateway's environment");
  const auto input = expand("${input:api-key}");
  ASSERT_FALSE(input.has_value());
  EXPECT_NE(input.error().find("${input:api-key} asks VS Code to prompt"), std::string::npos);
  EXPECT_NE(input.error().find("${secret:NAME}"), std::string::npos);
}

}  // namespace
}  // namespace mcpgate::config
