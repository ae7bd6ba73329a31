// `mcpgate secret` through the real binary: a value set from stdin reaches a
// sandboxed server's environment, and neither `config check` nor any output
// of the gateway shows it; a wrong key is a clear error; rotate-key and rm.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kMcpgate = MCPGATE_BINARY;
constexpr const char* kValue = "sk-cli-test-4f9a2c71e0";

using Result = mcpgate::test_support::ProcessResult;

Result run(const std::vector<std::string>& argv, const std::string& input = "") {
  return mcpgate::test_support::runProcess(argv, input);
}

class SecretCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("MCPGATE_SECRET_KEY");
    ::unsetenv("CREDENTIALS_DIRECTORY");
    std::string dir = (fs::temp_directory_path() / "mcpgate-secret-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    ::chmod(dir_.c_str(), 0755);
    config_ = dir_ + "/gw.yaml";
    std::ofstream(config_)
        << "state_dir: " << dir_ << "/state\n"
        << "servers:\n  show:\n    command: node\n"
        << "    args: [-e, \"process.stdout.write(String(process.env.TOKEN))\"]\n"
        << "    env: {TOKEN: \"${secret:API_TOKEN}\"}\n";
  }
  void TearDown() override {
    ::unsetenv("MCPGATE_SECRET_KEY");
    fs::remove_all(dir_);
  }
  Result secret(const std::string& action, const std::string& name = "",
                const std::string& input = "") {
    std::vector<std::string> argv = {kMcpgate, "secret", action, "-c", config_};
    if (!name.empty()) argv.push_back(name);
    return run(argv, input);
  }
  Result check() { return run({kMcpgate, "config", "check", config_}); }
  Result server() { return run({kMcpgate, "sandbox", "run", "-c", config_, "--server", "show"}); }
  static void expectNoValue(const Result& r) {
    EXPECT_EQ(r.out.find(kValue), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(kValue), std::string::npos) << r.err;
  }

  std::string dir_;
  std::string config_;
};

TEST_F(SecretCliTest, AStoredSecretReachesOnlyTheServersEnvironment) {
  // Before the secret exists, the config names a secret the store lacks.
  Result early = check();
  EXPECT_NE(early.code, 0);
  Result set = secret("set", "API_TOKEN", std::string(kValue) + "\n");
  ASSERT_EQ(set.code, 0) << set.err;
  expectNoValue(set);
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/state/secret.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream store(dir_ + "/state/secrets.json");
  std::stringstream text;
  text << store.rdbuf();
  EXPECT_EQ(text.str().find(kValue), std::string::npos);

  Result list = secret("list");
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out, "API_TOKEN\n");
  Result checked = check();
  EXPECT_EQ(checked.code, 0) << checked.err;
  EXPECT_NE(checked.out.find("TOKEN: <set>"), std::string::npos) << checked.out;
  expectNoValue(checked);

  Result ran = server();
  EXPECT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.out, kValue);
  EXPECT_EQ(ran.err.find(kValue), std::string::npos) << ran.err;
}

TEST_F(SecretCliTest, AWrongKeyIsAClearErrorAndRotateKeyKeepsTheValues) {
  ASSERT_EQ(secret("set", "API_TOKEN", kValue).code, 0);
  ::setenv("MCPGATE_SECRET_KEY", "a-wrong-key-0123456789abcdef0123456789", 1);
  Result wrong = check();
  EXPECT_NE(wrong.code, 0);
  EXPECT_NE(wrong.err.find("MCPGATE_SECRET_KEY does not open the secret store"), std::string::npos)
      << wrong.err;
  Result wrong_server = server();
  EXPECT_NE(wrong_server.code, 0);
  expectNoValue(wrong_server);
  ::unsetenv("MCPGATE_SECRET_KEY");

  std::ifstream before_file(dir_ + "/state/secret.key");
  std::string before;
  before_file >> before;
  Result rotated = secret("rotate-key");
  EXPECT_EQ(rotated.code, 0) << rotated.err;
  std::ifstream after_file(dir_ + "/state/secret.key");
  std::string after;
  after_file >> after;
  EXPECT_NE(before, after);
  EXPECT_FALSE(fs::exists(dir_ + "/state/secret.key.old"));
  EXPECT_EQ(server().out, kValue);

  EXPECT_EQ(secret("rm", "API_TOKEN").code, 0);
  EXPECT_EQ(secret("list").out, "");
  Result gone = check();
  EXPECT_NE(gone.err.find("secret 'API_TOKEN' is not in the secret store"), std::string::npos)
      << gone.err;
}

TEST_F(SecretCliTest, ValuesNeverComeFromArguments) {
  Result r = run({kMcpgate, "secret", "set", "-c", config_, "API_TOKEN", kValue});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("usage"), std::string::npos);
}

}  // namespace
