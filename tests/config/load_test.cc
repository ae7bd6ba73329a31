#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.h"
#include "config/origin.h"
#include "dlp/rule.h"

namespace mcpgate::config {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

class LoadConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "mcpgate-config-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Loads a config that must load.
  std::shared_ptr<const Config> load(const std::string& text, const std::string& name = "gw.yaml") {
    auto loaded = loadConfig(write(name, text));
    EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
    return loaded.value_or(nullptr);
  }

  // Loads a config that must fail, and returns the message.
  std::string errorOf(const std::string& text, const std::string& name = "gw.yaml") {
    auto loaded = loadConfig(write(name, text));
    if (loaded) return "(loaded without error)";
    return loaded.error().message;
  }

  // The message expected for gw.yaml at a line.
  std::string at(int line, const std::string& message, const std::string& name = "gw.yaml") {
    return dir_ + "/" + name + ":" + std::to_string(line) + ": " + message;
  }

  std::string dir_;
};

constexpr const char* kMinimal = "servers:\n  echo:\n    command: node\n";

TEST_F(LoadConfigTest, LoadsAFullYamlConfig) {
  fs::create_directory(dir_ + "/work");
  auto config = load(R"(listen: 0.0.0.0:0
allowed_origins: [http://localhost:3000, "https://app.example.com"]
log_level: debug
servers:
  everything:
    command: node
    args: [/opt/servers/everything/dist/index.js, --port, 3001, "quoted arg"]
    env: {MODE: test, LEVEL: 3}
    cwd: /
  fs.v2-beta_1:
    command: python3
    cwd: work
session:
  idle_timeout: 5m
  grace: 250ms
  request_timeout: 1h
limits:
  max_body_bytes: 1MB
  max_json_depth: 32
  max_line_bytes: 1GiB
  max_sessions: 10
)");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->source, dir_ + "/gw.yaml");
  EXPECT_EQ(config->listen_host, "0.0.0.0");
  EXPECT_EQ(config->listen_port, 0);
  EXPECT_EQ(config->allowed_origins,
            (std::vector<std::string>{"http://localhost:3000", "https://app.example.com"}));
  EXPECT_EQ(config->log_level, "debug");
  ASSERT_EQ(config->servers.size(), 2U);
  const ServerConfig& everything = config->servers.at("everything");
  EXPECT_EQ(everything.name, "everything");
  EXPECT_EQ(everything.command, "node");
  EXPECT_EQ(everything.args, (std::vector<std::string>{"/opt/servers/everything/dist/index.js",
                                                       "--port", "3001", "quoted arg"}));
  EXPECT_EQ(everything.env,
            (std::vector<std::pair<std::string, std::string>>{{"MODE", "test"}, {"LEVEL", "3"}}));
  EXPECT_EQ(everything.cwd, "/");
  const ServerConfig& fs_server = config->servers.at("fs.v2-beta_1");
  EXPECT_TRUE(fs_server.args.empty());
  EXPECT_EQ(fs_server.cwd, dir_ + "/work");
  EXPECT_EQ(config->session.idle_timeout, std::chrono::minutes(5));
  EXPECT_EQ(config->session.grace, milliseconds(250));
  EXPECT_EQ(config->session.request_timeout, std::chrono::hours(1));
  EXPECT_EQ(config->limits.max_body_bytes, 1000000U);
  EXPECT_EQ(config->limits.max_json_depth, 32U);
  EXPECT_EQ(config->limits.max_line_bytes, 1024U * 1024 * 1024);
  EXPECT_EQ(config->limits.max_sessions, 10U);
}

TEST_F(LoadConfigTest, FillsDefaults) {
  auto config = load(kMinimal);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->listen_host, "127.0.0.1");
  EXPECT_EQ(config->listen_port, 8080);
  EXPECT_TRUE(config->allowed_origins.empty());
  EXPECT_TRUE(originAllowed(*config, "http://localhost:3000"));
  EXPECT_FALSE(originAllowed(*config, "https://example.com"));
  EXPECT_EQ(config->log_level, "info");
  EXPECT_EQ(config->session.idle_timeout, seconds(300));
  EXPECT_EQ(config->session.grace, seconds(10));
  EXPECT_EQ(config->session.request_timeout, seconds(300));
  EXPECT_EQ(config->session.max_per_client, 16U);
  EXPECT_EQ(config->limits.max_body_bytes, 4U * 1024 * 1024);
  EXPECT_EQ(config->limits.max_json_depth, 64U);
  EXPECT_EQ(config->limits.max_line_bytes, 16U * 1024 * 1024);
  EXPECT_EQ(config->limits.max_sessions, 1024U);
  const ServerConfig& echo = config->servers.at("echo");
  EXPECT_TRUE(echo.args.empty());
  EXPECT_TRUE(echo.env.empty());
  EXPECT_EQ(echo.cwd, dir_) << "the default cwd is the config file's directory";
}

TEST_F(LoadConfigTest, EmptySectionsMeanDefaults) {
  auto config =
      load("session:\nlimits:\nservers:\n  echo:\n    command: node\n    args:\n    env:\n");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->session.grace, seconds(10));
}

TEST_F(LoadConfigTest, AcceptsIpv6Listen) {
  auto config = load(std::string("listen: \"[::1]:9090\"\n") + kMinimal);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->listen_host, "::1");
  EXPECT_EQ(config->listen_port, 9090);
}

TEST_F(LoadConfigTest, LoadsClientMcpServersJson) {
  auto config = load(R"({
  "listen": "127.0.0.1:0",
  "mcpServers": {
    "everything": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything", 42, true],
      "env": {"DEBUG": "1"},
      "autoApprove": ["echo"],
      "alwaysAllow": [],
      "timeout": 60,
      "disabled": false
    },
    "old": {"command": "node", "args": ["old.js"], "disabled": true},
    "half-written": {"disabled": true, "type": "sse"}
  }
}
)",
                     "claude_desktop_config.json");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->listen_port, 0);
  ASSERT_EQ(config->servers.size(), 1U) << "disabled servers are skipped";
  const ServerConfig& everything = config->servers.at("everything");
  EXPECT_EQ(everything.command, "npx");
  EXPECT_EQ(everything.args, (std::vector<std::string>{
                                 "-y", "@modelcontextprotocol/server-everything", "42", "true"}));
  EXPECT_EQ(everything.env, (std::vector<std::pair<std::string, std::string>>{{"DEBUG", "1"}}));
  EXPECT_EQ(everything.cwd, dir_);
}

TEST_F(LoadConfigTest, ResolvesRelativeCwdAgainstTheConfigDirectory) {
  fs::create_directories(dir_ + "/servers/fs");
  fs::create_directories(dir_ + "/conf");
  const std::string text =
      "servers:\n"
      "  a: {command: node, cwd: ../servers/fs}\n"
      "  b: {command: node, cwd: ../servers/fs/}\n"
      "  c: {command: node, cwd: .}\n"
      "  d: {command: node, cwd: " +
      dir_ + "/servers/./fs}\n";
  auto config = load(text, "conf/gw.yaml");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->servers.at("a").cwd, dir_ + "/servers/fs");
  EXPECT_EQ(config->servers.at("b").cwd, dir_ + "/servers/fs");
  EXPECT_EQ(config->servers.at("c").cwd, dir_ + "/conf");
  EXPECT_EQ(config->servers.at("d").cwd, dir_ + "/servers/fs");
}

TEST_F(LoadConfigTest, ExpandsVariablesInEnvValues) {
  ASSERT_EQ(::setenv("MCPGATE_TEST_TOKEN", "s3cret-value", 1), 0);
  auto config = load(
      "servers:\n  gh:\n    command: node\n"
      "    env:\n      TOKEN: ${MCPGATE_TEST_TOKEN}\n      HEADER: Bearer ${MCPGATE_TEST_TOKEN}!\n"
      "      PRICE: $$5 and $${NOT_EXPANDED}\n");
  ::unsetenv("MCPGATE_TEST_TOKEN");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->servers.at("gh").env, (std::vector<std::pair<std::string, std::string>>{
                                              {"TOKEN", "s3cret-value"},
                                              {"HEADER", "Bearer s3cret-value!"},
                                              {"PRICE", "$5 and ${NOT_EXPANDED}"}}));
}

TEST_F(LoadConfigTest, DescribeShowsEffectiveConfigWithoutEnvValues) {
  ASSERT_EQ(::setenv("MCPGATE_TEST_TOKEN", "s3cret-value", 1), 0);
  auto config = load(
      "servers:\n  gh:\n    command: node\n    args: [--stdio, 'a b']\n"
      "    env: {TOKEN: '${MCPGATE_TEST_TOKEN}', PLAIN: visible-or-not}\n");
  ::unsetenv("MCPGATE_TEST_TOKEN");
  ASSERT_NE(config, nullptr);
  const std::string text = describeConfig(*config);
  EXPECT_NE(text.find("listen: 127.0.0.1:8080\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  idle_timeout: 300s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  grace: 10s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  max_body_bytes: 4MiB\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  max_line_bytes: 16MiB\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  max_json_depth: 64\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      TOKEN: <set>\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      PLAIN: <set>\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    cwd: " + dir_ + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("allowed_origins not set"), std::string::npos) << text;
  EXPECT_EQ(text.find("s3cret"), std::string::npos) << text;
  EXPECT_EQ(text.find("visible-or-not"), std::string::npos) << text;

  // The description is itself a valid config that means the same thing.
  auto again = load(text, "described.yaml");
  ASSERT_NE(again, nullptr);
  const auto withoutHeader = [](const std::string& described) {
    return described.substr(described.find('\n'));  // line 1 names the source file
  };
  EXPECT_EQ(withoutHeader(describeConfig(*again)), withoutHeader(text));
  EXPECT_EQ(again->servers.at("gh").args, config->servers.at("gh").args);
}

// `protocol:` says which MCP era a server speaks; auto (detect) when absent.
TEST_F(LoadConfigTest, ServerProtocolChoosesTheEra) {
  auto config = load(
      "servers:\n  a:\n    command: node\n  l:\n    command: node\n    protocol: legacy\n"
      "  m:\n    command: node\n    protocol: modern\n  x:\n    command: node\n"
      "    protocol: auto\n  r:\n    url: https://example.test/mcp\n    protocol: modern\n");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->servers.at("a").protocol, gateway::EraChoice::kAuto);
  EXPECT_EQ(config->servers.at("l").protocol, gateway::EraChoice::kLegacy);
  EXPECT_EQ(config->servers.at("m").protocol, gateway::EraChoice::kModern);
  EXPECT_EQ(config->servers.at("x").protocol, gateway::EraChoice::kAuto);
  EXPECT_EQ(config->servers.at("r").protocol, gateway::EraChoice::kModern);

  // `config check` shows every server's choice, and reads back the same.
  const std::string text = describeConfig(*config);
  EXPECT_NE(text.find("  a:\n"), std::string::npos) << text;
  for (const auto& [name, word] : std::vector<std::pair<std::string, std::string>>{
           {"a", "auto"}, {"l", "legacy"}, {"m", "modern"}, {"r", "modern"}}) {
    const std::size_t at = text.find("\n  " + name + ":\n");
    ASSERT_NE(at, std::string::npos) << text;
    // The server's block ends at the next line indented by two or fewer spaces.
    std::size_t end = at + 1;
    while ((end = text.find('\n', end + 1)) != std::string::npos &&
           text.compare(end + 1, 4, "    ") == 0) {
    }
    const std::string block = text.substr(at, end == std::string::npos ? end : end - at);
    EXPECT_NE(block.find("    protocol: " + word), std::string::npos) << name << ":" << block;
  }
  auto again = load(text, "described.yaml");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->servers.at("l").protocol, gateway::EraChoice::kLegacy);
  EXPECT_EQ(again->servers.at("r").protocol, gateway::EraChoice::kModern);
}

TEST_F(LoadConfigTest, ServerProtocolRejectsOtherWords) {
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    protocol: 2026-07-28\n"),
            at(4, "servers.x.protocol must be auto, legacy or modern (the MCP era the server "
                  "speaks), not '2026-07-28'"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    protocol: [modern]\n"),
            at(4, "servers.x.protocol must be auto, legacy or modern"));
  // Not a key of the clients' JSON formats: they would not know it either.
  EXPECT_EQ(
      errorOf("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"protocol\": \"modern\"}}}\n", "c.json"),
      at(1, "unknown key 'protocol' in mcpServers.a", "c.json"));
}

TEST_F(LoadConfigTest, DescribeListsExplicitOrigins) {
  auto config = load(std::string("allowed_origins: ['*']\nlisten: '[::1]:0'\n") + kMinimal);
  ASSERT_NE(config, nullptr);
  const std::string text = describeConfig(*config);
  EXPECT_NE(text.find("allowed_origins: [\"*\"]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("listen: \"[::1]:0\"\n"), std::string::npos) << text;
}

// Every shipped example must load, whoever adds it.
TEST(ConfigExamples, AllLoad) {
  const fs::path examples = fs::path(MCPGATE_SOURCE_DIR) / "config" / "examples";
  int loaded = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(examples)) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".yaml" && extension != ".yml" && extension != ".json") continue;
    auto config = loadConfig(entry.path().string());
    EXPECT_TRUE(config.has_value()) << config.error().message;
    ++loaded;
  }
  EXPECT_GE(loaded, 1) << "config/examples/minimal.yaml at least";
}

// ----- errors: each names the file, the line, and what to do -----

TEST_F(LoadConfigTest, MissingFile) {
  auto loaded = loadConfig(dir_ + "/nope.yaml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message, dir_ + "/nope.yaml: cannot read: No such file or directory");
}

TEST_F(LoadConfigTest, DirectoryInsteadOfFile) {
  auto loaded = loadConfig(dir_);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().message, dir_ + ": cannot read: Is a directory");
}

TEST_F(LoadConfigTest, SyntaxError) {
  EXPECT_EQ(errorOf("listen: 127.0.0.1:8080\nservers:\n  echo: {command: node\n"),
            at(4, "syntax error: end of map flow not found"));
  EXPECT_EQ(errorOf("servers:\n  echo:\n    command: node\n   args: x\n"),
            at(4, "syntax error: end of map not found"));
}

TEST_F(LoadConfigTest, SyntaxErrorInJson) {
  EXPECT_EQ(errorOf("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n", "c.json"),
            at(5, "syntax error: end of map flow not found", "c.json"));
}

TEST_F(LoadConfigTest, AbsurdNesting) {
  const std::string text = "servers: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  const std::string message = errorOf(text);
  EXPECT_TRUE(message.starts_with(dir_ + "/gw.yaml:1: nested more than ")) << message;
  EXPECT_TRUE(message.ends_with(" levels deep, which no config needs")) << message;
}

TEST_F(LoadConfigTest, EmptyFile) {
  EXPECT_EQ(errorOf("# nothing yet\n"),
            dir_ + "/gw.yaml: the file is empty: no servers configured");
}

TEST_F(LoadConfigTest, NotAMap) {
  EXPECT_EQ(errorOf("\n- servers\n"),
            at(2, "the config must be a map with keys such as listen and servers"));
}

TEST_F(LoadConfigTest, MoreThanOneDocument) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "---\nlisten: 0.0.0.0:80\n"),
            at(5, "only one YAML document is allowed per file"));
}

TEST_F(LoadConfigTest, UnknownTopLevelKey) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listn: 127.0.0.1:80\n"),
            at(4, "unknown key 'listn' at top level (did you mean 'listen'?)"));
  // A misspelt section must not be silently ignored: nobody may believe it is enforced.
  EXPECT_EQ(errorOf(std::string(kMinimal) + "policys:\n  - match: {}\n"),
            at(4, "unknown key 'policys' at top level (did you mean 'policies'?)"));
  EXPECT_EQ(errorOf(std::string("sandbx: {}\n") + kMinimal),
            at(1, "unknown key 'sandbx' at top level (did you mean 'sandbox'?)"));
}

TEST_F(LoadConfigTest, UnknownKeyInSession) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session:\n  grace: 5s\n  idle_timout: 10s\n"),
            at(6, "unknown key 'idle_timout' in session (did you mean 'idle_timeout'?)"));
}

TEST_F(LoadConfigTest, SessionMaxPerClient) {
  auto off = load(std::string(kMinimal) + "session: {max_per_client: 0}\n");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->session.max_per_client, 0U) << "0 turns the limit off";
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session: {max_per_client: -1}\n"),
            at(4, "session.max_per_client '-1' must be an integer from 0 (no limit) to 1000000"));
}

TEST_F(LoadConfigTest, UnknownKeyInLimits) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_body: 1MiB\n"),
            at(5, "unknown key 'max_body' in limits"));
}

TEST_F(LoadConfigTest, UnknownKeyInServer) {
  EXPECT_EQ(errorOf("servers:\n  echo:\n    command: node\n    agrs: [x]\n"),
            at(4, "unknown key 'agrs' in servers.echo (did you mean 'args'?)"));
  // Client-only keys are not part of the YAML format.
  EXPECT_EQ(errorOf("servers:\n  echo:\n    command: node\n    disabled: true\n"),
            at(4, "unknown key 'disabled' in servers.echo"));
}

TEST_F(LoadConfigTest, UnknownKeyInClientJsonServer) {
  // A tool filter the gateway would not enforce must not pass silently.
  EXPECT_EQ(
      errorOf("{\"mcpServers\": {\"a\": {\n  \"command\": \"x\",\n  \"disabledTools\": []}}}\n",
              "c.json"),
      at(3, "unknown key 'disabledTools' in mcpServers.a", "c.json"));
  EXPECT_EQ(
      errorOf("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"envFile\": \".env\"}}}\n", "c.json"),
      at(1, "mcpServers.a.envFile is not supported yet (list the variables under 'env')",
         "c.json"));
}

TEST_F(LoadConfigTest, DuplicateKey) {
  EXPECT_EQ(errorOf("servers:\n  echo:\n    command: node\n    command: evil\n"),
            at(4, "duplicate key 'command' in servers.echo (first on line 3)"));
  EXPECT_EQ(
      errorOf("{\"mcpServers\": {\n \"a\": {\"command\": \"x\"},\n \"a\": {\"command\": \"y\"}}}",
              "c.json"),
      at(3, "duplicate key 'a' in mcpServers (first on line 2)", "c.json"));
}

TEST_F(LoadConfigTest, WrongTypes) {
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    args: --verbose\n"),
            at(4, "servers.x.args must be a list of strings"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    args:\n      - a\n      - {b: c}\n"),
            at(6, "servers.x.args must be a list of strings"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    env: [A=1]\n"),
            at(4, "servers.x.env must be a map of strings"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    env:\n      A: [1]\n"),
            at(5, "servers.x.env must be a map of strings"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: [node, x.js]\n"),
            at(3, "servers.x.command must be a string"));
  EXPECT_EQ(errorOf("servers:\n  x: node\n"), at(2, "servers.x must be a map"));
  EXPECT_EQ(errorOf("servers: [x]\n"), at(1, "servers must be a map from server names to servers"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session: 10s\n"), at(4, "session must be a map"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listen: {host: x}\n"),
            at(4, "listen must be a string such as 127.0.0.1:8080"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session:\n  grace:\n"),
            at(5, "session.grace must be a duration such as 10s"));
}

TEST_F(LoadConfigTest, NulByteInArgument) {
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    args: [\"a\\0b\"]\n"),
            at(4, "servers.x.args must not contain a NUL byte"));
}

TEST_F(LoadConfigTest, MissingOrEmptyCommand) {
  EXPECT_EQ(errorOf("servers:\n  echo:\n    args: [x]\n"),
            at(2, "servers.echo: missing required key 'command' (or 'url' for a remote server)"));
  EXPECT_EQ(errorOf("servers:\n  echo:\n"),
            at(2, "servers.echo: missing required key 'command' (or 'url' for a remote server)"));
  EXPECT_EQ(errorOf("servers:\n  echo:\n    command: ''\n"),
            at(3, "servers.echo.command must not be empty"));
}

TEST_F(LoadConfigTest, BadListen) {
  const std::string form = "(use HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080)";
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listen: 127.0.0.1\n"),
            at(4, "listen '127.0.0.1' has no port " + form));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listen: 127.0.0.1:70000\n"),
            at(4,
               "listen '127.0.0.1:70000' has an invalid port '70000' (must be a number from 0 "
               "to 65535)"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listen: 'bad host:80'\n"),
            at(4, "listen 'bad host:80' has an invalid host 'bad host' " + form));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "listen: 8080\n"),
            at(4, "listen '8080' has no port " + form));
}

TEST_F(LoadConfigTest, BadDuration) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session:\n  idle_timeout: 5 minutes\n"),
            at(5,
               "session.idle_timeout '5 minutes' is not a duration (use an integer followed by "
               "ms, s, m or h, e.g. 250ms, 10s, 5m, 1h)"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session:\n  grace: 0s\n"),
            at(5, "session.grace must be greater than 0"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "session:\n  request_timeout: 9000h\n"),
            at(5, "session.request_timeout '9000h' is too large (at most 8760h)"));
}

TEST_F(LoadConfigTest, BadSize) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_body_bytes: 4mb\n"),
            at(5,
               "limits.max_body_bytes '4mb' is not a size (use an integer number of bytes, "
               "optionally followed by B, KiB, MiB, GiB, KB, MB or GB, e.g. 4MiB)"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_line_bytes: 0\n"),
            at(5, "limits.max_line_bytes must be greater than 0"));
}

TEST_F(LoadConfigTest, BadCounts) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_json_depth: 0\n"),
            at(5, "limits.max_json_depth '0' must be an integer from 1 to 10000"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_json_depth: 10001\n"),
            at(5, "limits.max_json_depth '10001' must be an integer from 1 to 10000"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "limits:\n  max_sessions: -1\n"),
            at(5, "limits.max_sessions '-1' must be an integer from 1 to 1000000"));
}

TEST_F(LoadConfigTest, BadLogLevel) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "log_level: verbose\n"),
            at(4, "log_level 'verbose' must be one of debug, info, warn, error"));
}

TEST_F(LoadConfigTest, BadAllowedOrigins) {
  EXPECT_EQ(
      errorOf(std::string(kMinimal) + "allowed_origins:\n  - http://ok:1\n  - localhost:3000\n"),
      at(6,
         "allowed_origins entry 'localhost:3000' must be '*' or SCHEME://HOST[:PORT] with "
         "scheme http or https and no path"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "allowed_origins: []\n"),
            at(4,
               "allowed_origins is empty: remove it for the default (http and https on "
               "localhost, 127.0.0.1 and [::1]) or list the allowed origins"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "allowed_origins: http://x\n"),
            at(4, "allowed_origins must be a list of origins such as http://localhost:3000"));
}

TEST_F(LoadConfigTest, UndefinedVariable) {
  ::unsetenv("MCPGATE_TEST_UNDEFINED");
  EXPECT_EQ(errorOf("servers:\n  gh:\n    command: node\n    env:\n      A: ok\n"
                    "      TOKEN: ${MCPGATE_TEST_UNDEFINED}\n"),
            at(6,
               "servers.gh.env.TOKEN: ${MCPGATE_TEST_UNDEFINED} is not set in the gateway's "
               "environment"));
}

TEST_F(LoadConfigTest, BadEnvName) {
  EXPECT_EQ(errorOf("servers:\n  gh:\n    command: node\n    env:\n      A=B: x\n"),
            at(5,
               "servers.gh.env key 'A=B' is not a valid environment variable name (use "
               "[A-Za-z_][A-Za-z0-9_]*)"));
}

TEST_F(LoadConfigTest, MissingCwd) {
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    cwd: missing/dir\n"),
            at(4, "servers.x.cwd 'missing/dir' (" + dir_ + "/missing/dir) does not exist"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    cwd: /nonexistent-mcpgate\n"),
            at(4, "servers.x.cwd '/nonexistent-mcpgate' does not exist"));
  write("file", "");
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    cwd: file\n"),
            at(4, "servers.x.cwd 'file' (" + dir_ + "/file) is not a directory"));
}

TEST_F(LoadConfigTest, BadServerName) {
  const std::string rule =
      "' must be 1 to 64 of A-Z a-z 0-9 _ . - and not '.' or '..' (it is the URL path /mcp/NAME)";
  EXPECT_EQ(errorOf("servers:\n  my server:\n    command: node\n"),
            at(2, "server name 'my server" + rule));
  EXPECT_EQ(errorOf("servers:\n  ok: {command: node}\n  '..': {command: node}\n"),
            at(3, "server name '.." + rule));
  EXPECT_EQ(errorOf("servers:\n  a/b: {command: node}\n"), at(2, "server name 'a/b" + rule));
  const std::string long_name(65, 'a');
  EXPECT_EQ(errorOf("servers:\n  " + long_name + ": {command: node}\n"),
            at(2, "server name '" + long_name + rule));
  EXPECT_NE(load("servers:\n  " + std::string(64, 'a') + ": {command: node}\n"), nullptr);
}

TEST_F(LoadConfigTest, NoServers) {
  EXPECT_EQ(errorOf("listen: 127.0.0.1:8080\n"), dir_ + "/gw.yaml: no servers configured");
  EXPECT_EQ(errorOf("listen: 127.0.0.1:8080\nservers: {}\n"), at(2, "no servers configured"));
  EXPECT_EQ(errorOf("listen: 127.0.0.1:8080\nservers:\n"), at(2, "no servers configured"));
  EXPECT_EQ(
      errorOf("{\"mcpServers\":\n  {\"a\": {\"command\": \"x\", \"disabled\": true}}}\n", "c.json"),
      at(1, "no servers configured (all are disabled)", "c.json"));
}

TEST_F(LoadConfigTest, BothServerFormats) {
  EXPECT_EQ(errorOf(std::string(kMinimal) + "mcpServers: {b: {command: y}}\n"),
            at(4, "use either 'servers' or 'mcpServers', not both"));
}

TEST_F(LoadConfigTest, RemoteServerInJson) {
  auto config = load(
      "{\"mcpServers\": {\n  \"remote\": {\n    \"type\": \"http\",\n"
      "    \"url\": \"https://mcp.example.com/mcp\"}}}\n",
      "c.json");
  ASSERT_TRUE(config);
  ASSERT_TRUE(config->servers.at("remote").remote);
  EXPECT_EQ(config->servers.at("remote").remote->host, "mcp.example.com");
  EXPECT_EQ(
      errorOf(
          "{\"mcpServers\": {\n  \"remote\": {\"type\": \"sse\", \"url\": \"https://x/mcp\"}}}\n",
          "c.json"),
      at(2,
         "mcpServers.remote.type 'sse': the old HTTP+SSE transport is not supported; remote "
         "servers must speak Streamable HTTP (type 'http')",
         "c.json"));
  EXPECT_EQ(errorOf("{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"disabled\": \"yes\"}}}\n",
                    "c.json"),
            at(2, "mcpServers.a.disabled must be true or false", "c.json"));
}

// ----- sandbox: the global policy, per-server settings, the allowlist -----

TEST_F(LoadConfigTest, WithoutASandboxSectionTheDefaultsApplyAndCommandsAreStillChecked) {
  // The sandbox is on for every server: no section means the default policy,
  // not no policy.
  auto config = load("servers:\n  b: {command: node}\n");
  ASSERT_NE(config, nullptr);
  const sandbox::SandboxPolicy defaults;
  EXPECT_EQ(config->sandbox.commands, defaults.commands);
  EXPECT_EQ(config->sandbox.network, sandbox::NetworkMode::kNone);
  EXPECT_EQ(config->sandbox.on_unavailable, sandbox::OnUnavailable::kFail);
  EXPECT_EQ(config->sandbox.limits.memory_bytes, defaults.limits.memory_bytes);
  const sandbox::SandboxPolicy& b = config->servers.at("b").sandbox;
  EXPECT_EQ(b.commands, defaults.commands);
  EXPECT_EQ(b.arg_deny, defaults.arg_deny);
  EXPECT_EQ(b.limits.tmpfs_bytes, defaults.limits.tmpfs_bytes);
  EXPECT_TRUE(b.binds.empty());
  const std::string text = describeConfig(*config);
  EXPECT_NE(text.find("sandbox:\n  on_unavailable: fail\n  commands: [node, npx, python3, uvx]\n"
                      "  network: none\n  limits: {memory: 1GiB, processes: 256, open_files: "
                      "1024, cpu_seconds: 3600, cpu: 1, file_size: 64MiB, tmpfs: 128MiB}\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(errorOf("servers:\n  a: {command: /nonexistent/server}\n"),
            at(2,
               "servers.a.command: command '/nonexistent/server' (/nonexistent/server) is not in "
               "the sandbox command allowlist [node, npx, python3, uvx]; add it to "
               "sandbox.commands"));
}

TEST_F(LoadConfigTest, LoadsTheIssueExampleWithGlobalAndPerServerSandbox) {
  fs::create_directory(dir_ + "/srv");
  auto config = load(R"(sandbox:
  on_unavailable: degrade
  network: host
  commands: [node, npx, python3, uvx, /opt/bin/server]
  limits: {memory: 2GiB, processes: 100, open_files: 512, cpu_seconds: 60, cpu: 1.5,
           file_size: 1MiB, tmpfs: 0}
servers:
  files:
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", /data]
    sandbox:
      network: none
      binds: [{src: )" +
                     dir_ + R"(/srv, dst: /data, ro: true}]
  custom:
    command: /opt/bin/server
    sandbox: {binds: [{src: srv, dst: /opt/bin}]}
)");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->sandbox.on_unavailable, sandbox::OnUnavailable::kDegrade);
  EXPECT_EQ(config->sandbox.network, sandbox::NetworkMode::kHost);
  EXPECT_EQ(config->sandbox.commands,
            (std::vector<std::string>{"node", "npx", "python3", "uvx", "/opt/bin/server"}));
  EXPECT_EQ(config->sandbox.limits.memory_bytes, 2ULL << 30);
  EXPECT_EQ(config->sandbox.limits.processes, 100U);
  EXPECT_EQ(config->sandbox.limits.open_files, 512U);
  EXPECT_EQ(config->sandbox.limits.cpu_seconds, 60U);
  EXPECT_EQ(config->sandbox.limits.cpu_millicores, 1500U);
  EXPECT_EQ(config->sandbox.limits.file_size_bytes, 1ULL << 20);
  EXPECT_EQ(config->sandbox.limits.tmpfs_bytes, 0U);  // no limit

  const sandbox::SandboxPolicy& files = config->servers.at("files").sandbox;
  EXPECT_EQ(files.network, sandbox::NetworkMode::kNone);
  EXPECT_EQ(files.on_unavailable, sandbox::OnUnavailable::kDegrade);
  EXPECT_EQ(files.limits.memory_bytes, 2ULL << 30);
  ASSERT_EQ(files.binds.size(), 1U);
  EXPECT_EQ(files.binds[0].src, dir_ + "/srv");
  EXPECT_EQ(files.binds[0].dst, "/data");
  EXPECT_TRUE(files.binds[0].ro);
  const sandbox::SandboxPolicy& custom = config->servers.at("custom").sandbox;
  EXPECT_EQ(custom.network, sandbox::NetworkMode::kHost);
  ASSERT_EQ(custom.binds.size(), 1U);
  EXPECT_EQ(custom.binds[0].src, dir_ + "/srv");  // relative to the config's directory

  // The description carries the sandbox and loads back to the same thing.
  const std::string text = describeConfig(*config);
  EXPECT_NE(text.find("sandbox:\n  on_unavailable: degrade\n  commands: [node, npx, python3, uvx, "
                      "/opt/bin/server]\n  network: host\n  host_block: true\n  limits: {memory: "
                      "2GiB, processes: "
                      "100, open_files: 512, cpu_seconds: 60, cpu: 1.5, file_size: 1MiB, "
                      "tmpfs: 0B}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    sandbox:\n      network: none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("      binds:\n        - {src: " + dir_ + "/srv, dst: /data, ro: true}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      hostname: mcp-files\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("# no sandbox section"), std::string::npos) << text;
  auto again = load(text, "described.yaml");
  ASSERT_NE(again, nullptr);
  const std::string described = describeConfig(*again);
  EXPECT_EQ(described.substr(described.find('\n')), text.substr(text.find('\n')));
}

TEST_F(LoadConfigTest, PerServerSandboxSettingsOverrideTheGlobalOnes) {
  fs::create_directory(dir_ + "/a");
  fs::create_directory(dir_ + "/b");
  ::setenv("MCPGATE_TEST_SANDBOX_VAR", "expanded", 1);
  auto config = load(R"(sandbox:
  network: host
  limits: {memory: 2GiB, processes: 50}
  binds:
    - {src: )" + dir_ +
                     R"(/a, dst: /shared, ro: false}
    - {src: )" + dir_ +
                     R"(/a, dst: /common}
  env: {A: "1", B: "2"}
servers:
  narrow:
    command: node
    sandbox:
      network: none
      limits: {processes: 10}
      binds: [{src: )" +
                     dir_ + R"(/b, dst: /shared}, {src: )" + dir_ + R"(/b, dst: /own}]
      env: {B: "3", C: "${MCPGATE_TEST_SANDBOX_VAR}"}
      hostname: narrow-box
  plain:
    command: python3
)");
  ::unsetenv("MCPGATE_TEST_SANDBOX_VAR");
  ASSERT_NE(config, nullptr);
  const sandbox::SandboxPolicy& narrow = config->servers.at("narrow").sandbox;
  EXPECT_EQ(narrow.network, sandbox::NetworkMode::kNone);
  EXPECT_EQ(narrow.limits.memory_bytes, 2ULL << 30);  // global
  EXPECT_EQ(narrow.limits.processes, 10U);            // its own
  EXPECT_EQ(narrow.limits.open_files, 1024U);         // default
  ASSERT_EQ(narrow.binds.size(), 3U);
  EXPECT_EQ(narrow.binds[0].dst, "/shared");  // the global bind, replaced: now ro from b
  EXPECT_EQ(narrow.binds[0].src, dir_ + "/b");
  EXPECT_TRUE(narrow.binds[0].ro);
  EXPECT_EQ(narrow.binds[1].dst, "/common");
  EXPECT_EQ(narrow.binds[2].dst, "/own");
  EXPECT_EQ(narrow.env, (std::vector<std::pair<std::string, std::string>>{
                            {"A", "1"}, {"B", "3"}, {"C", "expanded"}}));
  EXPECT_EQ(narrow.hostname, "narrow-box");

  const sandbox::SandboxPolicy& plain = config->servers.at("plain").sandbox;
  EXPECT_EQ(plain.network, sandbox::NetworkMode::kHost);
  EXPECT_EQ(plain.limits.processes, 50U);
  ASSERT_EQ(plain.binds.size(), 2U);
  EXPECT_FALSE(plain.binds[0].ro);
  EXPECT_EQ(plain.env, config->sandbox.env);
  EXPECT_EQ(plain.hostname, "");
}

TEST_F(LoadConfigTest, CommandOutsideTheAllowlistIsRefusedWithItsLine) {
  const std::string kAllow = "the sandbox command allowlist [node, npx, python3, uvx]";
  EXPECT_EQ(errorOf("sandbox: {network: none}\nservers:\n  x:\n    args: [-c, id]\n"
                    "    command: bash\n"),
            at(5, "servers.x.command: command 'bash' (/usr/bin/bash) is not in " + kAllow +
                      "; add it to sandbox.commands"));
  // The section may come after the servers, and "/usr/bin/node" is not "node".
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: /usr/bin/node\nsandbox:\n  commands: [node]\n"),
            at(3,
               "servers.x.command: command '/usr/bin/node' (/usr/bin/node) is not in the sandbox "
               "command allowlist [node]; add it to sandbox.commands"));
  EXPECT_EQ(errorOf("sandbox: {}\nmcpServers:\n  x: {\"command\": \"sh\"}\n", "c.json"),
            at(3,
               "mcpServers.x.command: command 'sh' (/usr/bin/sh) is not in " + kAllow +
                   "; add it to sandbox.commands",
               "c.json"));
}

TEST_F(LoadConfigTest, CommandMustResolveAndBeVisibleInsideTheSandbox) {
  EXPECT_EQ(errorOf("sandbox:\n  commands: [mcpgate-no-such-command]\nservers:\n"
                    "  x: {command: mcpgate-no-such-command}\n"),
            at(4,
               "servers.x.command: command not found in "
               "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin: "
               "mcpgate-no-such-command"));
  // An absolute command outside /usr exists inside the sandbox only through a bind.
  EXPECT_EQ(errorOf("sandbox:\n  commands: [node, /opt/x/server]\nservers:\n"
                    "  x: {command: /opt/x/server}\n"),
            at(4,
               "servers.x.command: '/opt/x/server' is not visible inside the sandbox, which "
               "shows only /usr and the server's binds: bind its directory (sandbox.binds) or "
               "install it under /usr"));
  auto config = load(
      "sandbox:\n  commands: [node, /opt/x/server]\nservers:\n"
      "  x:\n    command: /opt/x/server\n    sandbox: {binds: [{src: ., dst: "
      "/opt/x}]}\n");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->servers.at("x").sandbox.binds[0].src, dir_);
}

TEST_F(LoadConfigTest, ArgumentsAreCheckedAtLoadAsAtSpawn) {
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    args: [../server.js]\n"),
            at(3, "servers.x.command: argument 1 of 'node' contains the denied pattern '../'"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    args: [a, 'b; rm -rf /']\n"),
            at(3, "servers.x.command: argument 2 of 'node' contains the denied pattern ';'"));
}

TEST_F(LoadConfigTest, SandboxKeyErrors) {
  EXPECT_EQ(errorOf(std::string("sandbox:\n  netwrk: none\n") + kMinimal),
            at(2, "unknown key 'netwrk' in sandbox (did you mean 'network'?)"));
  EXPECT_EQ(errorOf(std::string("sandbox: [none]\n") + kMinimal), at(1, "sandbox must be a map"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  hostname: box\n") + kMinimal),
            at(2,
               "sandbox.hostname can only be set per server (servers.NAME.sandbox.hostname; "
               "the default is mcp-NAME)"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox:\n      bindz: []\n"),
            at(5, "unknown key 'bindz' in servers.x.sandbox (did you mean 'binds'?)"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox:\n      commands: [bash]\n"),
            at(5,
               "servers.x.sandbox.commands can only be set in the top-level sandbox section "
               "(sandbox.commands), which applies to every server"));
  EXPECT_EQ(
      errorOf("servers:\n  x:\n    command: node\n    sandbox:\n      on_unavailable: degrade\n"),
      at(5,
         "servers.x.sandbox.on_unavailable can only be set in the top-level sandbox section "
         "(sandbox.on_unavailable), which applies to every server"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox: 3\n"),
            at(4, "servers.x.sandbox must be a map"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox:\n      hostname: a b\n"),
            at(5, "servers.x.sandbox.hostname 'a b' must be 1 to 64 of A-Z a-z 0-9 - ."));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  env: {1X: a}\n") + kMinimal),
            at(2,
               "sandbox.env key '1X' is not a valid environment variable name (use "
               "[A-Za-z_][A-Za-z0-9_]*)"));
}

TEST_F(LoadConfigTest, SandboxEnumErrors) {
  EXPECT_EQ(errorOf(std::string("sandbox:\n  network: bridge\n") + kMinimal),
            at(2, "sandbox.network 'bridge' must be none or host or allowlist"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  on_unavailable: warn\n") + kMinimal),
            at(2, "sandbox.on_unavailable 'warn' must be fail or degrade"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox: {network: [host]}\n"),
            at(4, "servers.x.sandbox.network must be none or host or allowlist"));
}

TEST_F(LoadConfigTest, SandboxLimitErrors) {
  EXPECT_EQ(errorOf(std::string("sandbox:\n  limits: {memory: 1XB}\n") + kMinimal),
            at(2,
               "sandbox.limits.memory '1XB' is not a size (use an integer number of bytes, "
               "optionally followed by B, KiB, MiB, GiB, KB, MB or GB, e.g. 4MiB)"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  limits:\n    processes: -1\n") + kMinimal),
            at(3,
               "sandbox.limits.processes '-1' must be an integer from 0 (no limit) to "
               "1000000000"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  limits: {tmpfs: 1KiB}\n") + kMinimal),
            at(2, "sandbox.limits.tmpfs '1KiB' must be 0 (no limit) or at least 4KiB"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  limits: {memroy: 1GiB}\n") + kMinimal),
            at(2, "unknown key 'memroy' in sandbox.limits (did you mean 'memory'?)"));
  EXPECT_EQ(errorOf("servers:\n  x:\n    command: node\n    sandbox:\n      limits: {cpu_seconds: "
                    "1h}\n"),
            at(5,
               "servers.x.sandbox.limits.cpu_seconds '1h' must be an integer from 0 (no limit) "
               "to 1000000000"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  limits: {cpu: 2 cores}\n") + kMinimal),
            at(2, "sandbox.limits.cpu: invalid number of cores '2 cores': expected a decimal "
                  "such as 1.5 or 0.25 (0: no limit)"));
}

// /tmp and HOME are noexec unless a section opens them; HOME stays executable
// for uvx (it runs the tools it installs there) unless a section says no.
TEST_F(LoadConfigTest, TmpAndHomeAreNoexecExceptHomeForUvx) {
  fs::create_directory(dir_ + "/bin");
  { std::ofstream(dir_ + "/bin/uvx") << "#!/bin/sh\n"; }
  fs::permissions(dir_ + "/bin/uvx", fs::perms::owner_all);
  auto config = load(R"(sandbox:
  commands: [node, /opt/bin/uvx]
  binds: [{src: bin, dst: /opt/bin}]
servers:
  js: {command: node}
  py: {command: /opt/bin/uvx}
  py_closed: {command: /opt/bin/uvx, sandbox: {home_exec: false}}
  js_open: {command: node, sandbox: {tmp_exec: true, home_exec: true}}
)");
  ASSERT_NE(config, nullptr);
  const auto& servers = config->servers;
  EXPECT_FALSE(servers.at("js").sandbox.tmp_exec);
  EXPECT_FALSE(servers.at("js").sandbox.home_exec);
  EXPECT_FALSE(servers.at("py").sandbox.tmp_exec);
  EXPECT_TRUE(servers.at("py").sandbox.home_exec);
  EXPECT_FALSE(servers.at("py_closed").sandbox.home_exec);
  EXPECT_TRUE(servers.at("js_open").sandbox.tmp_exec);
  EXPECT_TRUE(servers.at("js_open").sandbox.home_exec);
  EXPECT_EQ(errorOf(std::string("sandbox:\n  tmp_exec: yes\n") + kMinimal),
            at(2, "sandbox.tmp_exec must be true or false"));
}

TEST_F(LoadConfigTest, StderrLimitsAreSetGloballyAndPerServer) {
  auto config = load(R"(sandbox:
  stderr: {lines_per_second: 5, max_line_bytes: 256}
servers:
  quiet: {command: node}
  chatty: {command: node, sandbox: {stderr: {lines_per_second: 200, burst: 400}}}
)");
  ASSERT_NE(config, nullptr);
  const sandbox::StderrLimits& quiet = config->servers.at("quiet").sandbox.stderr_limits;
  EXPECT_EQ(quiet.lines_per_second, 5);
  EXPECT_EQ(quiet.burst, sandbox::StderrLimits{}.burst);
  EXPECT_EQ(quiet.max_line_bytes, 256U);
  const sandbox::StderrLimits& chatty = config->servers.at("chatty").sandbox.stderr_limits;
  EXPECT_EQ(chatty.lines_per_second, 200);
  EXPECT_EQ(chatty.burst, 400U);
  EXPECT_EQ(chatty.max_line_bytes, sandbox::StderrLimits{}.max_line_bytes);  // a whole section
  EXPECT_NE(describeConfig(*config).find("stderr: {lines_per_second: 5, burst: 20, "
                                         "max_line_bytes: 256B}"),
            std::string::npos)
      << describeConfig(*config);
  EXPECT_EQ(errorOf(std::string("sandbox:\n  stderr: {max_line_bytes: 1GiB}\n") + kMinimal),
            at(2, "sandbox.stderr.max_line_bytes '1GiB' must be a size from 64 to 1MiB"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  stderr: {burts: 3}\n") + kMinimal),
            at(2, "unknown key 'burts' in sandbox.stderr (did you mean 'burst'?)"));
}

TEST_F(LoadConfigTest, SandboxCommandsErrors) {
  EXPECT_EQ(errorOf(std::string("sandbox:\n  commands:\n    - node\n    - bin/node\n") + kMinimal),
            at(4,
               "sandbox.commands entry 'bin/node' must be a command name (looked up in the "
               "sandbox's fixed PATH) or a normalized absolute path"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  commands: [/opt/../bin/x]\n") + kMinimal),
            at(2,
               "sandbox.commands entry '/opt/../bin/x' must be a command name (looked up in "
               "the sandbox's fixed PATH) or a normalized absolute path"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  commands: node\n") + kMinimal),
            at(2, "sandbox.commands must be a list of command names or absolute paths"));
}

TEST_F(LoadConfigTest, CacheDirIsRelativeToTheConfigAndNeedNotExistYet) {
  auto config = load(std::string("cache_dir: state/cache/\n") + kMinimal);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->cache_dir, dir_ + "/state/cache");
  EXPECT_NE(describeConfig(*config).find("cache_dir: " + dir_ + "/state/cache\n"),
            std::string::npos);
  auto defaults = load(kMinimal);
  ASSERT_NE(defaults, nullptr);
  EXPECT_EQ(defaults->cache_dir, defaultCacheDir());
  EXPECT_EQ(errorOf(std::string("cache_dir: ''\n") + kMinimal),
            at(1, "cache_dir must not be empty"));
}

TEST_F(LoadConfigTest, AggregateSeparator) {
  auto defaults = load(kMinimal);
  ASSERT_NE(defaults, nullptr);
  EXPECT_EQ(defaults->aggregate.separator, "__");
  auto dot = load(std::string("aggregate: {separator: .}\n") + kMinimal);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->aggregate.separator, ".");
  const std::string why = "' must be 1 to 8 of A-Z a-z 0-9 _ - . (allowed in tool names)";
  EXPECT_EQ(errorOf(std::string("aggregate: {separator: '/'}\n") + kMinimal),
            at(1, "aggregate.separator '/" + why));
  EXPECT_EQ(errorOf(std::string("aggregate: {separator: '123456789'}\n") + kMinimal),
            at(1, "aggregate.separator '123456789" + why));
  EXPECT_EQ(errorOf(std::string("aggregate: {separatr: x}\n") + kMinimal),
            at(1, "unknown key 'separatr' in aggregate (did you mean 'separator'?)"));
}

TEST_F(LoadConfigTest, StateDirIsRelativeToTheConfigAndNeedNotExistYet) {
  auto config = load(std::string("state_dir: var/state/\n") + kMinimal);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->state_dir, dir_ + "/var/state");
  EXPECT_NE(describeConfig(*config).find("state_dir: " + dir_ + "/var/state\n"), std::string::npos);
  auto defaults = load(kMinimal);
  ASSERT_NE(defaults, nullptr);
  EXPECT_EQ(defaults->state_dir, defaultStateDir());
  if (::geteuid() == 0) {
    EXPECT_EQ(defaults->state_dir, "/var/lib/mcpgate");
  }
  EXPECT_EQ(errorOf(std::string("state_dir: ''\n") + kMinimal),
            at(1, "state_dir must not be empty"));
}

TEST_F(LoadConfigTest, SandboxBindErrors) {
  const std::string server = "servers:\n  x:\n    command: node\n    sandbox:\n      binds:\n";
  const std::string p = "servers.x.sandbox.binds[0]";
  EXPECT_EQ(errorOf(server + "        - {src: data, dst: /data}\n"),
            at(6, p + ".src 'data' (" + dir_ + "/data) does not exist on this host"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: data}\n"),
            at(6, p + ".dst 'data' must be an absolute path other than /"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: /}\n"),
            at(6, p + ".dst '/' must be an absolute path other than /"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: /a/../etc}\n"),
            at(6, p + ".dst '/a/../etc' must not contain '..'"));
  EXPECT_EQ(errorOf(server + "        - src: " + dir_ + "/missing\n          dst: /data\n"),
            at(6, p + ".src '" + dir_ + "/missing' does not exist on this host"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + "}\n"),
            at(6, p + ": missing required key 'dst'"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: /d, ro: yes}\n"),
            at(6, p + ".ro must be true or false"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: /d, rw: true}\n"),
            at(6, "unknown key 'rw' in " + p + " (did you mean 'ro'?)"));
  EXPECT_EQ(errorOf(server + "        - /data\n"),
            at(6, p + " must be a map with src, dst and optionally ro"));
  EXPECT_EQ(errorOf(server + "        - {src: " + dir_ + ", dst: /d}\n        - {src: " + dir_ +
                    ", dst: /d}\n"),
            at(7,
               "servers.x.sandbox.binds[1].dst '/d' is already the dst of "
               "servers.x.sandbox.binds[0]"));
  EXPECT_EQ(errorOf(std::string("sandbox:\n  binds: {src: /}\n") + kMinimal),
            at(2, "sandbox.binds must be a list of {src, dst, ro} maps"));
}

TEST_F(LoadConfigTest, DlpIsOnWithTheShippedPacksByDefault) {
  auto config = load(kMinimal);
  ASSERT_NE(config, nullptr);
  EXPECT_TRUE(config->dlp.enabled);
  ASSERT_FALSE(config->dlp.rules.empty());
  EXPECT_TRUE(std::filesystem::exists(config->dlp.rules[0])) << config->dlp.rules[0];
  EXPECT_FALSE(config->dlp.request_action.has_value());
  EXPECT_FALSE(config->dlp.response_action.has_value());
}

TEST_F(LoadConfigTest, LoadsTheDlpSection) {
  write("mine.yaml", "rules: []\n");
  std::filesystem::create_directory(dir_ + "/packs");
  auto config = load(std::string(kMinimal) +
                     "dlp:\n  enabled: false\n  rules: [mine.yaml, packs/]\n"
                     "  default_action: {request: block, response: warn}\n");
  ASSERT_NE(config, nullptr);
  EXPECT_FALSE(config->dlp.enabled);
  EXPECT_EQ(config->dlp.rules, (std::vector<std::string>{dir_ + "/mine.yaml", dir_ + "/packs/"}));
  EXPECT_EQ(config->dlp.request_action, dlp::Action::kBlock);
  EXPECT_EQ(config->dlp.response_action, dlp::Action::kWarn);
  EXPECT_NE(describeConfig(*config).find("default_action: {request: block, response: warn}"),
            std::string::npos)
      << describeConfig(*config);
}

// Found by the config_load fuzz target (tests/fuzz/corpus/config_load/regression-lone-comma):
// yaml-cpp's LoadAll never returned on this, allocating without bound.
TEST_F(LoadConfigTest, ALoneCommaIsAnErrorNotAHang) {
  EXPECT_EQ(errorOf(","), dir_ + "/gw.yaml: the file is empty: no servers configured");
  EXPECT_NE(errorOf(std::string(kMinimal) + ",\n").find("gw.yaml:"), std::string::npos);
}

TEST_F(LoadConfigTest, DlpErrorsNameTheLine) {
  const std::string base = std::string(kMinimal) + "dlp:\n";
  EXPECT_EQ(errorOf(base + "  enabled: yes\n"), at(5, "dlp.enabled must be true or false"));
  EXPECT_EQ(errorOf(base + "  rulez: []\n"),
            at(5, "unknown key 'rulez' in dlp (did you mean 'rules'?)"));
  EXPECT_EQ(errorOf(base + "  rules: []\n"),
            at(5,
               "dlp.rules is empty: remove it for the shipped rule packs, or set dlp.enabled: "
               "false to turn DLP off"));
  EXPECT_EQ(errorOf(base + "  rules: nope.yaml\n"),
            at(5, "dlp.rules must be a list of rule files or directories"));
  EXPECT_EQ(errorOf(base + "  rules:\n    - nope.yaml\n"),
            at(6, "dlp.rules entry 'nope.yaml' does not exist (" + dir_ + "/nope.yaml)"));
  EXPECT_EQ(errorOf(base + "  default_action: {request: deny}\n"),
            at(5, "dlp.default_action.request 'deny' must be one of log, warn, redact, block"));
  EXPECT_EQ(errorOf(base + "  default_action: {requests: block}\n"),
            at(5, "unknown key 'requests' in dlp.default_action (did you mean 'request'?)"));
  EXPECT_EQ(errorOf(base + "  enabled: true\n  enabled: false\n"),
            at(6, "duplicate key 'enabled' in dlp (first on line 5)"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "dlp: on\n"), at(4, "dlp must be a map"));
  EXPECT_EQ(errorOf(std::string(kMinimal) + "dpl: {}\n"),
            at(4, "unknown key 'dpl' at top level (did you mean 'dlp'?)"));
}

// A server's remote keys: `servers:` with one server r, then its lines.
constexpr const char* kRemote = "servers:\n  r:\n";

TEST_F(LoadConfigTest, RemoteLoadsAnHttpsServerWithHeadersAndTls) {
  write("ca.pem", "x");
  write("client.pem", "x");
  write("client.key", "x");
  ::setenv("REMOTE_SECTION_TOKEN", "tok-123", 1);
  auto loaded = load(std::string(kRemote) +
                     "    url: https://mcp.example.com:8443/v1/mcp?team=a\n"
                     "    headers: {Authorization: \"Bearer ${REMOTE_SECTION_TOKEN}\", X-Team: a}\n"
                     "    tls: {ca_file: ca.pem, cert_file: client.pem, key_file: client.key}\n"
                     "    connect_timeout: 3s\n");
  ASSERT_TRUE(loaded);
  const ServerConfig& server = loaded->servers.at("r");
  ASSERT_TRUE(server.remote);
  const RemoteConfig& remote = *server.remote;
  EXPECT_TRUE(remote.tls);
  EXPECT_EQ(remote.host, "mcp.example.com");
  EXPECT_EQ(remote.port, 8443);
  EXPECT_EQ(remote.target, "/v1/mcp?team=a");
  EXPECT_EQ(remote.headers, (std::vector<std::pair<std::string, std::string>>{
                                {"Authorization", "Bearer tok-123"}, {"X-Team", "a"}}));
  EXPECT_EQ(remote.ca_file, dir_ + "/ca.pem");
  EXPECT_EQ(remote.cert_file, dir_ + "/client.pem");
  EXPECT_EQ(remote.key_file, dir_ + "/client.key");
  EXPECT_EQ(remote.connect_timeout, std::chrono::seconds(3));

  // config check shows no header value and no query string.
  const std::string described = describeConfig(*loaded);
  EXPECT_EQ(described.find("tok-123"), std::string::npos) << described;
  EXPECT_EQ(described.find("team=a"), std::string::npos) << described;
  EXPECT_NE(described.find("Authorization: <set>"), std::string::npos) << described;
  EXPECT_NE(described.find("url: https://mcp.example.com:8443/v1/mcp?<set>"), std::string::npos)
      << described;
}

TEST_F(LoadConfigTest, RemoteDefaultsAndAddresses) {
  auto plain = load(std::string(kRemote) + "    url: http://localhost\n");
  ASSERT_TRUE(plain);
  const RemoteConfig& remote = *plain->servers.at("r").remote;
  EXPECT_FALSE(remote.tls);
  EXPECT_EQ(remote.port, 80);
  EXPECT_EQ(remote.target, "/");
  EXPECT_TRUE(remote.ca_file.empty());  // the system's bundle
  EXPECT_EQ(remote.connect_timeout, std::chrono::seconds(10));

  auto v6 = load(std::string(kRemote) + "    url: http://[::1]:9000/mcp\n");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->servers.at("r").remote->host, "::1");
  EXPECT_EQ(v6->servers.at("r").remote->port, 9000);

  EXPECT_TRUE(load(std::string(kRemote) +
                   "    url: http://10.0.0.5:9000/mcp\n    allow_insecure_http: true\n"));
}

TEST_F(LoadConfigTest, RemotePlainHttpOnlyToLoopback) {
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: http://mcp.example.com/mcp\n"),
            at(3,
               "servers.r.url 'http://mcp.example.com/mcp' is plain http to another host: its "
               "headers and every message would cross the network unencrypted. Use https, or set "
               "allow_insecure_http: true if the network is trusted"));
}

TEST_F(LoadConfigTest, RemoteBadUrls) {
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: ftp://x/mcp\n"),
            at(3,
               "servers.r.url 'ftp://x/mcp' must start with https:// (or http:// for a server "
               "on this host)"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: https://user:pw@x/mcp\n"),
            at(3,
               "servers.r.url 'https://user:pw@x/mcp' has user:password@ in it: put "
               "credentials in 'headers'"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: https://x:99999/mcp\n"),
            at(3, "servers.r.url 'https://x:99999/mcp' has a port outside 1 to 65535"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: https:///mcp\n"),
            at(3, "servers.r.url 'https:///mcp' has no host"));
}

TEST_F(LoadConfigTest, RemoteCommandAndUrlExcludeEachOther) {
  EXPECT_EQ(errorOf(std::string(kRemote) + "    command: node\n    url: https://x/mcp\n"),
            at(3,
               "servers.r has both 'command' and 'url': a server is either a command the gateway "
               "starts or a remote url, not both"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: https://x/mcp\n    args: [a]\n"),
            at(4,
               "servers.r.args applies only to a server the gateway starts with 'command', not to "
               "a remote 'url' server"));
  EXPECT_EQ(
      errorOf(std::string(kRemote) + "    url: https://x/mcp\n    sandbox: {network: host}\n"),
      at(4,
         "servers.r.sandbox applies only to a server the gateway starts with 'command', not "
         "to a remote 'url' server"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    command: node\n    headers: {A: b}\n"),
            at(4, "servers.r.headers is only for a remote server, which has a 'url'"));
}

TEST_F(LoadConfigTest, RemoteBadHeaders) {
  EXPECT_EQ(
      errorOf(std::string(kRemote) + "    url: https://x/mcp\n    headers: {\"Bad Name\": x}\n"),
      at(4, "servers.r.headers key 'Bad Name' is not a valid HTTP header name"));
  EXPECT_EQ(
      errorOf(std::string(kRemote) + "    url: https://x/mcp\n    headers: {Mcp-Session-Id: x}\n"),
      at(4,
         "servers.r.headers key 'Mcp-Session-Id' is set by the gateway itself and cannot "
         "be configured"));
  ::setenv("REMOTE_SECTION_SPLIT", "a\r\nX-Injected: 1", 1);
  EXPECT_EQ(errorOf(std::string(kRemote) +
                    "    url: https://x/mcp\n    headers: {A: \"${REMOTE_SECTION_SPLIT}\"}\n"),
            at(4,
               "servers.r.headers.A contains a line break or control character, which HTTP "
               "headers cannot carry"));
  ::unsetenv("REMOTE_SECTION_UNSET");
  EXPECT_EQ(errorOf(std::string(kRemote) +
                    "    url: https://x/mcp\n    headers: {A: \"${REMOTE_SECTION_UNSET}\"}\n"),
            at(4,
               "servers.r.headers.A: ${REMOTE_SECTION_UNSET} is not set in the gateway's "
               "environment"));
}

TEST_F(LoadConfigTest, RemoteTlsFiles) {
  write("client.pem", "x");
  EXPECT_EQ(
      errorOf(std::string(kRemote) + "    url: https://x/mcp\n    tls: {ca_file: nope.pem}\n"),
      at(4, "servers.r.tls.ca_file 'nope.pem' (" + dir_ + "/nope.pem) does not exist"));
  EXPECT_EQ(errorOf(std::string(kRemote) +
                    "    url: https://x/mcp\n    tls:\n      cert_file: client.pem\n"),
            at(5,
               "servers.r.tls.cert_file needs key_file too (the client certificate's private "
               "key)"));
  EXPECT_EQ(errorOf(std::string(kRemote) +
                    "    url: http://localhost/mcp\n    tls: {cert_file: client.pem, key_file: "
                    "client.pem}\n"),
            at(3, "servers.r.tls is set but the url is plain http"));
  EXPECT_EQ(errorOf(std::string(kRemote) + "    url: https://x/mcp\n    tls: {ca: x}\n"),
            at(4, "unknown key 'ca' in servers.r.tls"));
}


// A bind source under a directory others can write could be swapped for a symlink to / by the
// next sandbox's spawn: refused at load with the line, before any server runs.
TEST_F(LoadConfigTest, RefusesABindSourceOthersCouldRedirect) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to plant a link owned by another user";
  fs::create_directory(dir_ + "/shared");
  fs::permissions(dir_ + "/shared", fs::perms::all);
  fs::create_directory_symlink("/", dir_ + "/shared/data");
  ASSERT_EQ(::lchown((dir_ + "/shared/data").c_str(), 65534, 65534), 0);
  const std::string message = errorOf(
      "servers:\n  files:\n    command: node\n    sandbox:\n      binds: [{src: shared/data, "
      "dst: /data}]\n");
  EXPECT_NE(message.find(dir_ + "/gw.yaml:5: "), std::string::npos) << message;
  EXPECT_NE(message.find(dir_ + "/shared is writable by others"), std::string::npos) << message;
}

TEST_F(LoadConfigTest, AnAllowlistNeedsEntriesEachOfWhichParses) {
  auto config = load(R"(servers:
  api:
    command: node
    sandbox:
      network: allowlist
      allow: [api.example.com:443, "*.example.org", 203.0.113.0/24, "[2001:db8::1]:8080"]
)");
  ASSERT_NE(config, nullptr);
  const sandbox::SandboxPolicy& api = config->servers.at("api").sandbox;
  EXPECT_EQ(api.network, sandbox::NetworkMode::kAllowlist);
  EXPECT_EQ(api.allow, (std::vector<std::string>{"api.example.com:443", "*.example.org",
                                                 "203.0.113.0/24", "[2001:db8::1]:8080"}));
  EXPECT_NE(describeConfig(*config).find("network: allowlist"), std::string::npos);

  const std::string head = "servers:\n  api:\n    command: node\n    sandbox:\n";
  const std::string bad_entry =
      errorOf(head + "      network: allowlist\n      allow: [api.example.com, \"no such:entry\"]\n");
  EXPECT_NE(bad_entry.find(":6: servers.api.sandbox.allow entry 'no such:entry'"),
            std::string::npos)
      << bad_entry;
  const std::string empty = errorOf(head + "      network: allowlist\n");
  EXPECT_NE(empty.find("network: allowlist needs allow: entries"), std::string::npos) << empty;
  const std::string stray = errorOf(head + "      allow: [api.example.com]\n");
  EXPECT_NE(stray.find("allow: entries apply only with network: allowlist"), std::string::npos)
      << stray;
}

TEST_F(LoadConfigTest, HostNetworkHasItsBlockOnWithTheGatewaysPortAndAddressExceptions) {
  auto config = load(R"(listen: 127.0.0.1:8123
servers:
  api:
    command: node
    sandbox:
      network: host
      allow: [169.254.169.253:53, "fe80::/10"]
  open:
    command: node
    sandbox: {network: host, host_block: false}
)");
  ASSERT_NE(config, nullptr);
  const sandbox::SandboxPolicy& api = config->servers.at("api").sandbox;
  EXPECT_TRUE(api.host_block);
  EXPECT_EQ(api.own_ports, std::vector<std::uint16_t>{8123});
  EXPECT_EQ(api.allow, (std::vector<std::string>{"169.254.169.253:53", "fe80::/10"}));
  EXPECT_FALSE(config->servers.at("open").sandbox.host_block);
  const std::string described = describeConfig(*config);
  EXPECT_NE(described.find("host_block: true"), std::string::npos) << described;
  EXPECT_NE(described.find("host_block: false"), std::string::npos) << described;

  const std::string head = "servers:\n  api:\n    command: node\n    sandbox:\n";
  const std::string name = errorOf(head + "      network: host\n      allow: [api.example.com]\n");
  EXPECT_NE(name.find("'api.example.com' is a name; with network: host"), std::string::npos)
      << name;
  const std::string off =
      errorOf(head + "      network: host\n      host_block: false\n      allow: [10.0.0.1]\n");
  EXPECT_NE(off.find("host_block: false has none"), std::string::npos) << off;
  const std::string none = errorOf(head + "      allow: [10.0.0.1]\n");
  EXPECT_NE(none.find("allow: entries apply only with network: allowlist"), std::string::npos)
      << none;
}

}  // namespace
}  // namespace mcpgate::config
