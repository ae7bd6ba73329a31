// The configs people already have, through the real binary: `mcpgate import`
// and `mcpgate config check` on Claude Desktop, Cursor and VS Code files shaped
// as their documentation writes them.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "tests/gateway/harness.h"

namespace mcpgate::testing {
namespace {

// Claude Desktop's documentation: the filesystem server given folders (here
// one that exists on this host and, unless empty, one that does not).
std::string claudeDesktop(const std::string& desktop, const std::string& missing) {
  return R"({
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        ")" +
         desktop + (missing.empty() ? "" : "\",\n        \"" + missing) + R"("
      ]
    }
  }
})";
}

// Cursor's documentation (.cursor/mcp.json): a stdio server with env, a remote one.
constexpr const char* kCursor = R"({
  "mcpServers": {
    "server-name": {
      "command": "npx",
      "args": ["-y", "mcp-server"],
      "env": {"API_KEY": "value"}
    },
    "remote": {
      "url": "http://localhost:3000/mcp",
      "headers": {"API_KEY": "value"}
    }
  }
})";

// VS Code's documentation (.vscode/mcp.json): inputs, `servers`, "type": "stdio".
constexpr const char* kVsCode = R"({
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key",
     "password": true}
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    },
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}
  }
})";

TEST(DesktopConfigs, ConfigCheckWarnsAboutAHiddenPathAndImportAddsTheBind) {
  TempDir dir;
  const std::string desktop = dir.path() + "/Desktop";
  ASSERT_EQ(::mkdir(desktop.c_str(), 0755), 0);
  const std::string claude =
      dir.write("claude_desktop_config.json", claudeDesktop(desktop, "/Users/username/Downloads"));

  // The file loads, and check says which paths the server would not see, with the fix.
  auto check = runCommand(mcpgateBinary() + " config check " + claude);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("warning: mcpServers.filesystem.args[2]: " + desktop +
                              " is not visible inside the server's sandbox; to show it, add "
                              "under the server: sandbox: {binds: [{src: " +
                              desktop + ", dst: " + desktop + "}]}"),
            std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("warning: mcpServers.filesystem.args[3]: /Users/username/Downloads "
                              "is not visible inside the server's sandbox (and does not exist "
                              "on this host)"),
            std::string::npos)
      << check.output;

  // import prints YAML with the bind; a note on stderr for the path this host lacks.
  const std::string yaml = dir.path() + "/imported.yaml";
  auto imported = runCommand("(" + mcpgateBinary() + " import " + claude + " >" + yaml + ")");
  EXPECT_EQ(imported.exit_code, 0) << imported.output;
  EXPECT_NE(imported.output.find("note: mcpServers.filesystem.args[3]: /Users/username/Downloads "
                                 "does not exist on this host"),
            std::string::npos)
      << imported.output;
  const std::string text = readFile(yaml);
  EXPECT_NE(text.find("{src: " + desktop + ", dst: " + desktop + "}"), std::string::npos) << text;
  EXPECT_NE(text.find("command: npx"), std::string::npos) << text;

  // With only the folder this host has, the imported config checks clean: no warning left.
  const std::string one = dir.write("one.json", claudeDesktop(desktop, ""));
  auto present =
      runCommand("(" + mcpgateBinary() + " import " + one + " >" + dir.path() + "/one.yaml)");
  ASSERT_EQ(present.exit_code, 0) << present.output;
  EXPECT_NE(readFile(dir.path() + "/one.yaml").find(desktop + "]"), std::string::npos)
      << "the args keep the folder:\n"
      << readFile(dir.path() + "/one.yaml");
  auto before = runCommand(mcpgateBinary() + " config check " + one);
  EXPECT_NE(before.output.find("warning: "), std::string::npos) << before.output;
  auto clean = runCommand(mcpgateBinary() + " config check " + dir.path() + "/one.yaml");
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_EQ(clean.output.find("warning: "), std::string::npos) << clean.output;
}

TEST(DesktopConfigs, ImportKeepsSecretsOutAndRefusesVsCodeInputsWithWhatToDo) {
  TempDir dir;
  auto cursor = runCommand(mcpgateBinary() + " import " + dir.write("mcp.json", kCursor));
  EXPECT_EQ(cursor.exit_code, 0) << cursor.output;
  EXPECT_NE(cursor.output.find("API_KEY: ${API_KEY}"), std::string::npos) << cursor.output;
  EXPECT_NE(cursor.output.find("API_KEY: ${REMOTE_API_KEY}"), std::string::npos) << cursor.output;
  EXPECT_EQ(cursor.output.find("value"), std::string::npos) << "a secret leaked:\n"
                                                            << cursor.output;
  EXPECT_NE(cursor.output.find("mcpgate install -c"), std::string::npos) << cursor.output;

  TempDir vs;
  auto vscode = runCommand(mcpgateBinary() + " import " + vs.write("mcp.json", kVsCode));
  EXPECT_EQ(vscode.exit_code, 1) << vscode.output;
  EXPECT_NE(vscode.output.find("${input:perplexity-key} asks VS Code to prompt"), std::string::npos)
      << vscode.output;
  EXPECT_NE(vscode.output.find("mcpgate secret"), std::string::npos) << vscode.output;

  auto usage = runCommand(mcpgateBinary() + " import");
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.output.find("usage: mcpgate import FILE"), std::string::npos) << usage.output;
}

}  // namespace
}  // namespace mcpgate::testing
