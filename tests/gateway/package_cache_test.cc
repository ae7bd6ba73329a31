// Which packages `mcpgate install` installs for an npx server, and how a
// spawn of it sees the cache.

#include "gateway/upstream/package_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace mcpgate::gateway {
namespace {

using Strings = std::vector<std::string>;

TEST(NpxPackages, TheFirstWordThatIsNotAnOption) {
  EXPECT_EQ(npxPackages({"-y", "@modelcontextprotocol/server-filesystem", "/data"}),
            Strings{"@modelcontextprotocol/server-filesystem"});
  EXPECT_EQ(npxPackages({"--yes", "-q", "pkg@1.2.3", "--port", "3"}), Strings{"pkg@1.2.3"});
  EXPECT_EQ(npxPackages({"--", "pkg", "-y"}), Strings{"pkg"});
}

TEST(NpxPackages, PackageOptionsWinOverTheCommandWord) {
  EXPECT_EQ(npxPackages({"-y", "-p", "a@1", "--package=b", "--package", "c", "a-bin", "x"}),
            (Strings{"a@1", "b", "c"}));
}

TEST(NpxPackages, RefusesWhatItCannotTell) {
  EXPECT_EQ(npxPackages({"-y"}).error(), "npx's args name no package");
  EXPECT_EQ(npxPackages({"-p"}).error(), "-p needs a package");
  EXPECT_EQ(npxPackages({"-c", "echo hi"}).error(),
            "npx -c runs a shell command: name the packages with --package");
}

config::ServerConfig npxServer() {
  config::ServerConfig server;
  server.name = "files";
  server.command = "npx";
  server.args = {"-y", "pkg@1", "/data"};
  return server;
}

TEST(PackageCache, InstallRunsNpxWithOnlyTheRegistryAndTheCacheWritable) {
  config::Config config;
  config.cache_dir = "/var/cache/mcpgate";
  config::ServerConfig server = npxServer();
  server.env = {{"GITHUB_TOKEN", "ghp_server_secret"}};
  server.sandbox.env = {{"OPERATOR_KEY", "operator-secret"}};
  auto spec = installSpec(config, server);
  ASSERT_TRUE(spec) << spec.error();
  // The install script gets none of the server's variables.
  for (const auto& [key, value] : spec->env) EXPECT_TRUE(key.starts_with("npm_config_")) << key;
  EXPECT_TRUE(spec->sandbox->env.empty());
  EXPECT_EQ(spec->command, "npx");
  EXPECT_EQ(spec->args, (Strings{"--yes", "--package=pkg@1", "--", "node", "-e", "0"}));
  ASSERT_TRUE(spec->sandbox);
  EXPECT_EQ(spec->sandbox->network, sandbox::NetworkMode::kAllowlist);
  EXPECT_EQ(spec->sandbox->allow, (Strings{"registry.npmjs.org:443"}));
  ASSERT_EQ(spec->sandbox->binds.size(), 1U);
  EXPECT_EQ(spec->sandbox->binds[0].src, "/var/cache/mcpgate/npm/files");
  EXPECT_EQ(spec->sandbox->binds[0].dst, "/opt/mcpgate/npm");
  EXPECT_FALSE(spec->sandbox->binds[0].ro);
  EXPECT_EQ(registryAllowEntry("http://127.0.0.1:4873/").value(), "127.0.0.1:4873");
  EXPECT_EQ(registryAllowEntry("https://npm.example.com/repo/").value(), "npm.example.com:443");
  EXPECT_EQ(registryAllowEntry("https://u:p@[2001:db8::1]:8443").value(), "[2001:db8::1]:8443");
  EXPECT_FALSE(registryAllowEntry("file:///srv/npm"));
  config::ServerConfig node = npxServer();
  node.command = "node";
  EXPECT_EQ(installSpec(config, node).error(),
            "nothing to install for 'files': its command is node (only npx servers have managed "
            "packages)");
}

TEST(PackageCache, ARunSeesTheCacheThroughAnOverlayWithNpmOffline) {
  const std::string dir = ::testing::TempDir() + "/mcpgate-package-cache-test";
  std::filesystem::remove_all(dir);
  config::Config config;
  config.source = "gw.yaml";
  config.cache_dir = dir;
  sandbox::SpawnSpec spec{"files", "npx", {}, {}, {}};
  spec.sandbox = sandbox::SandboxPolicy{};
  EXPECT_EQ(addPackageCache(config, npxServer(), spec).error(),
            "its npm packages are not installed (the operator runs `mcpgate install -c gw.yaml "
            "files`)");
  std::filesystem::create_directories(dir + "/npm/files/_npx");
  ASSERT_TRUE(addPackageCache(config, npxServer(), spec));
  ASSERT_EQ(spec.sandbox->binds.size(), 1U);
  EXPECT_TRUE(spec.sandbox->binds[0].overlay);
  EXPECT_EQ(spec.sandbox->binds[0].src, dir + "/npm/files");
  EXPECT_NE(std::ranges::find(spec.env,
                              std::pair<std::string, std::string>{"npm_config_offline", "true"}),
            spec.env.end());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mcpgate::gateway
