// The configs people already have: Claude Desktop, Cursor and VS Code files as
// their documentation writes them, the host paths their servers cannot see in
// the sandbox, and `mcpgate import`'s YAML for them.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"
#include "config/import.h"
#include "config/visibility.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;

class DesktopConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-desktop-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::expected<std::shared_ptr<const Config>, Error> loadText(const std::string& name,
                                                               const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return loadConfig(path);
  }
  std::string dir_;
};

// Claude Desktop's documentation: the filesystem server given two folders.
constexpr const char* kClaudeDesktop = R"({
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads"
      ]
    }
  }
})";

// Cursor's documentation (.cursor/mcp.json): a stdio server with env and a remote one.
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

// VS Code's documentation (.vscode/mcp.json): inputs, `servers`, "type": "stdio"
// (Fetch as the pip install runs it: uvx is not on every test host).
std::string vsCode(const std::string& key_value) {
  return R"({
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key",
     "password": true}
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": ")" +
         key_value + R"("}
    },
    "Fetch": {"type": "stdio", "command": "python3", "args": ["-m", "mcp_server_fetch"]},
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}
  }
})";
}

TEST_F(DesktopConfigTest, ClaudeDesktopLoadsAndItsFoldersAreReportedHidden) {
  auto config = loadText("claude_desktop_config.json", kClaudeDesktop);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const auto hidden = hiddenPaths(**config);
  ASSERT_EQ(hidden.size(), 2U);
  EXPECT_EQ(hidden[0].where, "args[2]");
  EXPECT_EQ(hidden[0].path, "/Users/username/Desktop");
  const std::string message = describe(hidden[0], "mcpServers");
  EXPECT_NE(message.find("mcpServers.filesystem.args[2]: /Users/username/Desktop is not visible"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("binds: [{src: "), std::string::npos) << message;
}

TEST_F(DesktopConfigTest, AnExistingFolderGetsItsOwnBindAndABoundOneIsVisible) {
  fs::create_directories(dir_ + "/projects");
  const std::string text = "servers:\n  fs:\n    command: node\n    args: [server.js, " + dir_ +
                           "/projects, --root=" + dir_ + "/projects/a/b, /usr/share/doc]\n";
  auto config = loadText("gw.yaml", text);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const auto hidden = hiddenPaths(**config);
  ASSERT_EQ(hidden.size(), 2U);
  EXPECT_TRUE(hidden[0].exists);
  EXPECT_EQ(hidden[0].bind, dir_ + "/projects");
  EXPECT_FALSE(hidden[1].exists) << "a/b does not exist: its nearest existing parent is bound";
  EXPECT_EQ(hidden[1].bind, dir_ + "/projects");

  // With the bind the check asks for, nothing is hidden any more.
  auto bound = loadText("bound.yaml", text + "    sandbox: {binds: [{src: " + dir_ +
                                          "/projects, dst: " + dir_ + "/projects}]}\n");
  ASSERT_TRUE(bound.has_value()) << bound.error().message;
  EXPECT_TRUE(hiddenPaths(**bound).empty());
}

TEST_F(DesktopConfigTest, CursorLoads) {
  auto config = loadText("mcp.json", kCursor);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ((*config)->servers.size(), 2U);
  EXPECT_TRUE((*config)->servers.at("remote").remote.has_value());
  EXPECT_EQ((*config)->servers.at("server-name").env.at(0).second, "value");
}

TEST_F(DesktopConfigTest, VsCodeInputsAreRefusedWithWhatToDo) {
  auto config = loadText("mcp.json", vsCode("${input:perplexity-key}"));
  ASSERT_FALSE(config.has_value());
  const std::string& message = config.error().message;
  EXPECT_NE(message.find("mcp.json:11: servers.Perplexity.env.PERPLEXITY_API_KEY: "
                         "${input:perplexity-key} asks VS Code to prompt"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("mcpgate secret"), std::string::npos);
}

TEST_F(DesktopConfigTest, VsCodeLoadsWithTheValueFromTheEnvironment) {
  ::setenv("MCPGATE_TEST_PPLX", "k-123", 1);
  auto config = loadText("mcp.json", vsCode("${env:MCPGATE_TEST_PPLX}"));
  ::unsetenv("MCPGATE_TEST_PPLX");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ((*config)->servers.size(), 3U);
  const ServerConfig& pplx = (*config)->servers.at("Perplexity");
  EXPECT_EQ(pplx.command, "npx");
  EXPECT_EQ(pplx.env.at(0).second, "k-123");
  EXPECT_EQ((*config)->servers.at("Fetch").command, "python3");
  ASSERT_TRUE((*config)->servers.at("github").remote.has_value());
}

TEST_F(DesktopConfigTest, YamlServersStayStrict) {
  // mcpgate's own YAML `servers:` does not take the clients' keys.
  auto config = loadText("gw.yaml", "servers:\n  a: {command: node, disabled: true}\n");
  ASSERT_FALSE(config.has_value());
  EXPECT_NE(config.error().message.find("unknown key 'disabled'"), std::string::npos);
  auto inputs = loadText("gw.yaml", "inputs: []\nservers:\n  a: {command: node}\n");
  ASSERT_FALSE(inputs.has_value());
}

TEST_F(DesktopConfigTest, ImportWritesBindsAndKeepsSecretsOut) {
  auto config = loadText("mcp.json", kCursor);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  auto claude = loadText("claude.json", kClaudeDesktop);
  ASSERT_TRUE(claude.has_value()) << claude.error().message;

  const std::string cursor = importedYaml(**config);
  EXPECT_EQ(cursor.find("value"), std::string::npos) << "a secret leaked:\n" << cursor;
  EXPECT_NE(cursor.find("API_KEY: ${API_KEY}"), std::string::npos) << cursor;
  EXPECT_NE(cursor.find("${REMOTE_API_KEY}"), std::string::npos) << cursor;
  EXPECT_NE(cursor.find("mcpgate install"), std::string::npos) << cursor;

  const std::string text = importedYaml(**claude);
  EXPECT_NE(text.find("{src: /Users/username/Desktop, dst: /Users/username/Desktop}"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace mcpgate::config
